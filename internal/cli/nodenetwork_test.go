package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// windowsApp is a Deployment name in namespace shop that runs image on
// Windows nodes (spec.os, the os selector and a toleration of the os
// taint), its pods labelled app: name.
func windowsApp(name, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: shop}
spec:
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Exists}]
      containers: [{name: %[1]s, image: "%[2]s"}]
`, name, image)
}

// --node-config fills the Windows pools' cni and kubeProxyDSR: a flannel
// node makes the NetworkPolicy over Windows pods a finding, and a
// KubeProxyConfiguration with DSR quiets externalTrafficPolicy: Local.
func TestNodeConfigFillsPoolNetwork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, filepath.Join(dir, name), text) }
	node := filepath.Join(dir, "node")
	write("node/cni.conf", `{"cniVersion": "0.2.0", "name": "flannel.4096", "type": "flannel", "delegate": {"type": "sdnoverlay"}}`)
	write("node/kube-proxy.yaml", "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: kernelspace\nwinkernel:\n  enableDSR: true\n")
	manifest := write("app.yaml", windowsApp("iis", "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022")+`---
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

// --node-config fills the Windows pools' networkMode: flannel's vxlan
// net-conf.json makes the pool overlay, which the dual-stack rule names;
// host-gw (l2bridge) leaves the finding without it.
func TestNodeConfigFillsNetworkMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, filepath.Join(dir, name), text) }
	vxlan := write("vxlan/net-conf.json", `{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}`)
	hostgw := write("hostgw/net-conf.json", `{"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}`)
	manifest := write("app.yaml", windowsApp("api", "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022")+`---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec:
  ipFamilyPolicy: RequireDualStack
  selector: {app: api}
  ports: [{port: 80}]
`)
	overlay := `pool "windows" runs an overlay network`
	for _, tt := range []struct {
		name    string
		node    string
		overlay bool
	}{{"vxlan", vxlan, true}, {"host-gw", hostgw, false}} {
		_, out, errOut := run(t, false, "", "lint", "--cluster", "reference", "--node-config", tt.node, manifest)
		if !strings.Contains(out, "windows-service-dual-stack") {
			t.Fatalf("%s: no windows-service-dual-stack finding:\n%s%s", tt.name, out, errOut)
		}
		if got := strings.Contains(out, overlay); got != tt.overlay {
			t.Errorf("%s: output names the overlay pool: %v, want %v:\n%s", tt.name, got, tt.overlay, out)
		}
	}
}
