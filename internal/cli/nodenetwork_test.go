package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// --node-config fills the Windows pools' cni and kubeProxyDSR: a flannel
// node makes the NetworkPolicy over Windows pods a finding, and a
// KubeProxyConfiguration with DSR quiets externalTrafficPolicy: Local.
func TestNodeConfigFillsPoolNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, text)
		return p
	}
	node := filepath.Join(dir, "node")
	write("node/cni.conf", `{"cniVersion": "0.2.0", "name": "flannel.4096", "type": "flannel", "delegate": {"type": "sdnoverlay"}}`)
	write("node/kube-proxy.yaml", "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: kernelspace\nwinkernel:\n  enableDSR: true\n")
	manifest := write("app.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: iis, namespace: shop}
spec:
  selector: {matchLabels: {app: iis}}
  template:
    metadata: {labels: {app: iis}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Exists}]
      containers: [{name: iis, image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"}]
---
apiVersion: v1
kind: Service
metadata: {name: iis, namespace: shop}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: iis}
  ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: shop}
spec:
  podSelector: {}
`)
	for _, tt := range []struct {
		name  string
		args  []string
		want  []string
		wantN []string
	}{
		{"without", []string{"lint", "--cluster", "reference", manifest},
			[]string{"windows-service-external-traffic-local"}, []string{"windows-network-policy-not-enforced"}},
		{"with", []string{"lint", "--cluster", "reference", "--node-config", node, manifest},
			[]string{`pool "windows" (cni flannel) does not enforce NetworkPolicy`}, []string{"windows-service-external-traffic-local"}},
	} {
		_, out, errOut := run(t, false, "", tt.args...)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s%s", tt.name, w, out, errOut)
			}
		}
		for _, w := range tt.wantN {
			if strings.Contains(out, w) {
				t.Errorf("%s: output has %q:\n%s", tt.name, w, out)
			}
		}
	}
}
