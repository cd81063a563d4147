package audit

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

const auditNS = "winkube-audit"

// applyRBAC creates the objects of deploy/audit-rbac.yaml as kubectl
// apply would.
func applyRBAC(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := cp.Apply(ctx, filepath.Join("..", "..", "..", "deploy", "audit-rbac.yaml")); err != nil {
		t.Fatal(err)
	}
}

// tokenConfig returns a client config and a kubeconfig file that
// authenticate as the ServiceAccount, with a token from TokenRequest.
func tokenConfig(t *testing.T, ctx context.Context, ns, sa string) (*rest.Config, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg, err := cp.ServiceAccountKubeconfig(ctx, ns, sa, path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, path
}

// TestAuditUnderShippedClusterRole: the audit and doctor run with the
// ServiceAccount token of deploy/audit-rbac.yaml without a permission
// error, and report what the admin run reports.
func TestAuditUnderShippedClusterRole(t *testing.T) {
	ctx := t.Context()
	applyRBAC(t, ctx)
	cfg, kubeconfig := tokenConfig(t, ctx, auditNS, "winkube-audit")

	_, rep, out := runAudit(t, "--kubeconfig", kubeconfig)
	for _, f := range rep.Findings {
		if f.Rule == "permission-denied" {
			t.Errorf("permission-denied under the shipped ClusterRole: %s", f.Message)
		}
	}
	_, _, admin := runAudit(t, "--kubeconfig", cp.KubeconfigPath)
	if out != admin {
		t.Error("the audit under the ClusterRole differs from the admin's")
	}
	code, _, stderr := winkube(t, "doctor", "--kubeconfig", kubeconfig, "-A", "-o", "json")
	if code != 1 || stderr != "" {
		t.Errorf("doctor under the ClusterRole: exit %d, stderr %q", code, stderr)
	}

	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing Secrets with the winkube-audit token: %v, want Forbidden", err)
	}
	if _, err := cs.CoreV1().Secrets(ns).Get(ctx, "any", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("getting a Secret with the winkube-audit token: %v, want Forbidden", err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing ConfigMaps with the winkube-audit token: %v, want Forbidden", err)
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, winPod("intruder", "", servercore2022), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("creating a pod with the winkube-audit token: %v, want Forbidden", err)
	}
}

// TestAuditWithMissingPermissions: a ServiceAccount that may list only
// nodes and pods gets permission-denied findings naming what to grant,
// the rest of the audit still runs, and the run exits 2.
func TestAuditWithMissingPermissions(t *testing.T) {
	ctx := t.Context()
	c := cp.Client
	if err := cp.CreateNamespace(ctx, "limited"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().ServiceAccounts("limited").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "limited"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "winkube-limited"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"list"}}}}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	bind := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "winkube-limited"}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "limited", Namespace: "limited"}}}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, bind, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	_, kubeconfig := tokenConfig(t, ctx, "limited", "limited")
	code, rep, _ := runAudit(t, "--kubeconfig", kubeconfig)
	// The report is written, but a run that could not read what it
	// reports on fails, and the areas those kinds feed are unknown.
	if code != 2 {
		t.Errorf("audit with kinds it may not list: exit %d, want 2", code)
	}
	for _, a := range rep.Areas {
		if a.Status == "ready" && a.Name != "nodes" {
			t.Errorf("area %s is ready though deployments could not be listed", a.Name)
		}
	}
	denied := map[string]bool{}
	nodeRules := 0
	for _, f := range rep.Findings {
		if f.Rule == "permission-denied" {
			denied[f.Message[len("cannot list "):][:len("deployments")]] = true
		}
		if f.Rule == "windows-node-not-ready" {
			nodeRules++
		}
	}
	if !denied["deployments"] || len(denied) < 5 {
		t.Errorf("permission-denied findings for %v, want deployments and the other kinds not granted", denied)
	}
	if nodeRules != 1 {
		t.Errorf("node rules did not run on the nodes the account may list (windows-node-not-ready: %d findings)", nodeRules)
	}
}
