package livenode

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const auditNS = "winkube-audit"

// applyRBAC creates what deploy/audit-rbac.yaml and
// deploy/audit-node-proxy-rbac.yaml hold, as kubectl apply would, and the
// subjects of the tests:
//   - winkube-audit: the shipped role only (direct reads);
//   - nodes-only: may list nodes and nothing of the kubelets;
//   - proxy-user: the shipped role and the opt-in nodes/proxy role;
//   - the API server's kubelet client, as kubeadm binds it
//     (system:kubelet-api-admin), which the fake kubelets authorize.
func applyRBAC(ctx context.Context) error {
	for _, f := range []string{"audit-rbac.yaml", "audit-node-proxy-rbac.yaml"} {
		if err := cp.Apply(ctx, filepath.Join("..", "..", "..", "deploy", f)); err != nil {
			return err
		}
	}
	c := cp.Client
	for _, sa := range []string{"nodes-only", "proxy-user"} {
		if _, err := c.CoreV1().ServiceAccounts(auditNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: auditNS}}, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	nodesOnly := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "nodes-only"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}}}}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, nodesOnly, metav1.CreateOptions{}); err != nil {
		return err
	}
	binds := []struct {
		name, role string
		subject    rbacv1.Subject
	}{
		{"nodes-only", "nodes-only", rbacv1.Subject{Kind: "ServiceAccount", Name: "nodes-only", Namespace: auditNS}},
		{"proxy-user", "winkube-audit", rbacv1.Subject{Kind: "ServiceAccount", Name: "proxy-user", Namespace: auditNS}},
		{"proxy-user-node-proxy", "winkube-audit-node-proxy", rbacv1.Subject{Kind: "ServiceAccount", Name: "proxy-user", Namespace: auditNS}},
		{"kube-apiserver-kubelet-client", "system:kubelet-api-admin", rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "kube-apiserver-kubelet-client"}},
	}
	for _, b := range binds {
		crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: b.name},
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: b.role}, Subjects: []rbacv1.Subject{b.subject}}
		if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

// kubeconfigFor writes a kubeconfig into dir that authenticates as the
// ServiceAccount with a TokenRequest token, and returns its path.
func kubeconfigFor(t *testing.T, dir, sa string) string {
	t.Helper()
	path := filepath.Join(dir, sa+".kubeconfig")
	if _, err := cp.ServiceAccountKubeconfig(t.Context(), auditNS, sa, path); err != nil {
		t.Fatal(err)
	}
	return path
}
