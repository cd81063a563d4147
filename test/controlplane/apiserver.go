package controlplane

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// startAPIServer starts kube-apiserver on apiPort over etcdURL, serving
// with the harness's certificates and admin token, waits until it is
// ready and the default namespace exists, and sets cp's kubeconfig,
// config and client.
func (cp *ControlPlane) startAPIServer(ctx context.Context, opts Options, apiPort int, etcdURL string, caPEM []byte, token string) error {
	apiURL := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	apiArgs := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--tls-cert-file=" + filepath.Join(cp.Dir, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(cp.Dir, "apiserver.key"),
		"--token-auth-file=" + filepath.Join(cp.Dir, "tokens.csv"),
		"--authorization-mode=" + cmp.Or(opts.AuthorizationMode, "AlwaysAllow"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(cp.Dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(cp.Dir, "sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--enable-admission-plugins=RuntimeClass,MutatingAdmissionWebhook,ValidatingAdmissionWebhook",
		"--disable-admission-plugins=TaintNodesByCondition,ServiceAccount",
		"--allow-privileged=true",
		// Endpoints may not be loopback addresses, and nothing routes to
		// the kubernetes service here anyway.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}
	apiArgs = append(apiArgs, opts.ExtraAPIServerFlags...)
	if err := cp.spawn("kube-apiserver", filepath.Join(cp.BinDir, "kube-apiserver"), apiArgs...); err != nil {
		return err
	}

	cfg := &rest.Config{
		Host:            apiURL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
		QPS:             1000,
		Burst:           2000,
	}
	caPool := x509.NewCertPool()
	caPool.AppendCertsFromPEM(caPEM)
	apiHTTP := &http.Client{Timeout: 5 * time.Second, Transport: &bearerTransport{token: token,
		rt: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool}}}}
	if err := cp.waitFor(ctx, "kube-apiserver /readyz", cp.proc("kube-apiserver"), apiHTTP, readyzCheck(apiURL+"/readyz?verbose")); err != nil {
		return err
	}
	// The "default" namespace is created by a bootstrap controller shortly
	// after the server is ready; tests may rely on it.
	if err := cp.waitFor(ctx, "namespace default", cp.proc("kube-apiserver"), apiHTTP, readyzCheck(apiURL+"/api/v1/namespaces/default")); err != nil {
		return err
	}

	cp.KubeconfigPath = filepath.Join(cp.Dir, "kubeconfig")
	if err := os.WriteFile(cp.KubeconfigPath, []byte(kubeconfig(apiURL, caPEM, "admin", token, "")), 0o600); err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("controlplane: client: %w", err)
	}
	cp.Config, cp.Client = cfg, client
	return nil
}
