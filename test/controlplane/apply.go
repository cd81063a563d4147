package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"os"

	authenticationv1 "k8s.io/api/authentication/v1"
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
		var head struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return fmt.Errorf("%s document %d: %w", path, i, err)
		}
		switch head.Kind {
		case "Namespace":
			err = create(ctx, doc, c.CoreV1().Namespaces().Create)
		case "ServiceAccount":
			err = create(ctx, doc, c.CoreV1().ServiceAccounts(head.Metadata.Namespace).Create)
		case "ClusterRole":
			err = create(ctx, doc, c.RbacV1().ClusterRoles().Create)
		case "ClusterRoleBinding":
			err = create(ctx, doc, c.RbacV1().ClusterRoleBindings().Create)
		default:
			return fmt.Errorf("%s document %d: unexpected kind %q", path, i, head.Kind)
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s: creating %s: %w", path, head.Kind, err)
		}
	}
	return nil
}

// create decodes doc strictly into a T and creates it with createFn.
func create[T any](ctx context.Context, doc []byte, createFn func(context.Context, *T, metav1.CreateOptions) (*T, error)) error {
	var o T
	if err := yaml.UnmarshalStrict(doc, &o); err != nil {
		return err
	}
	_, err := createFn(ctx, &o, metav1.CreateOptions{})
	return err
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
