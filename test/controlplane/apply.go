package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"os"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// Apply creates the objects of the manifest file at path as kubectl apply
// does the first time; an object that exists is left as it is. It knows
// the kinds of the RBAC files under deploy/ (Namespace, ServiceAccount,
// ClusterRole, ClusterRoleBinding), each decoded strictly.
func (cp *ControlPlane) Apply(ctx context.Context, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	c := cp.Client
	for i, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return fmt.Errorf("%s document %d: %w", path, i, err)
		}
		switch meta.Kind {
		case "Namespace":
			var o corev1.Namespace
			if err = yaml.UnmarshalStrict(doc, &o); err == nil {
				_, err = c.CoreV1().Namespaces().Create(ctx, &o, metav1.CreateOptions{})
			}
		case "ServiceAccount":
			var o corev1.ServiceAccount
			if err = yaml.UnmarshalStrict(doc, &o); err == nil {
				_, err = c.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, &o, metav1.CreateOptions{})
			}
		case "ClusterRole":
			var o rbacv1.ClusterRole
			if err = yaml.UnmarshalStrict(doc, &o); err == nil {
				_, err = c.RbacV1().ClusterRoles().Create(ctx, &o, metav1.CreateOptions{})
			}
		case "ClusterRoleBinding":
			var o rbacv1.ClusterRoleBinding
			if err = yaml.UnmarshalStrict(doc, &o); err == nil {
				_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, &o, metav1.CreateOptions{})
			}
		default:
			return fmt.Errorf("%s document %d: unexpected kind %q", path, i, meta.Kind)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s: creating %s: %w", path, meta.Kind, err)
		}
	}
	return nil
}

// ServiceAccountKubeconfig writes at path a kubeconfig that authenticates
// as the ServiceAccount ns/sa with a TokenRequest token, its context's
// namespace ns, and returns the client config it stands for.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, ns, sa, path string) (*rest.Config, error) {
	tr, err := cp.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token for %s/%s: %w", ns, sa, err)
	}
	cfg := &rest.Config{Host: cp.Config.Host, BearerToken: tr.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: cp.Config.CAData}}
	return cfg, os.WriteFile(path, []byte(kubeconfig(cp.Config.Host, cp.Config.CAData, sa, tr.Status.Token, ns)), 0o600)
}
