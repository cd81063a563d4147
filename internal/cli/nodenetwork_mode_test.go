package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// --node-config fills the Windows pools' networkMode: flannel's vxlan
// net-conf.json makes the pool overlay, which the dual-stack rule names;
// host-gw (l2bridge) leaves the finding without it.
func TestNodeConfigFillsNetworkMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, text)
		return p
	}
	vxlan := write("vxlan/net-conf.json", `{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}`)
	hostgw := write("hostgw/net-conf.json", `{"Network": "10.244.0.0/16", "Backend": {"Type": "host-gw"}}`)
	manifest := write("app.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Exists}]
      containers: [{name: api, image: "mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022"}]
---
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
