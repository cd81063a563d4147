package simulate

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/cluster"
)

// windowsWeb is the pod spec of a Windows web server, up to its env.
const windowsWeb = `
os: {name: windows}
nodeSelector: {kubernetes.io/os: windows}
tolerations: [{key: os, operator: Exists}]
containers:
- name: web
  image: mcr.microsoft.com/dotnet/aspnet:8.0-nanoserver-ltsc2022
  resources: {requests: {cpu: 100m, memory: 64Mi}}
`

var depsInput = yamlDocs(serviceYAML("shop", "backend", "backend", 8080), serviceYAML("shop", "audit", "audit", 80), `apiVersion: v1
kind: Service
metadata: {name: v6, namespace: shop}
spec:
  ipFamilies: [IPv6]
  selector: {app: backend}
  ports: [{port: 80}]
`, deploymentYAML("shop", "backend", 1, `
os: {name: linux}
containers: [{name: b, image: nginx:1.27, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
`), deploymentYAML("shop", "audit", 1, `
os: {name: linux}
containers: [{name: a, image: nginx:1.27, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
`), `# Only the frontend may reach audit.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: audit-ingress, namespace: shop}
spec:
  podSelector: {matchLabels: {app: audit}}
  ingress:
  - from: [{podSelector: {matchLabels: {app: frontend}}}]
`, `apiVersion: v1
kind: ConfigMap
metadata: {name: web-config, namespace: shop}
data:
  appsettings.json: '{"Audit": "http://audit:80", "Backend": "http://backend.shop.svc.cluster.local:8080"}'
`, deploymentYAML("shop", "web", 1, windowsWeb+`  env:
  - {name: BACKEND, value: "http://backend.shop:8080"}
  - {name: V6, value: "http://v6:80"}
  - {name: PAYMENTS, value: "https://payments.billing.svc.cluster.local"}
  volumeMounts: [{name: config, mountPath: 'C:\app\config'}]
volumes: [{name: config, configMap: {name: web-config}}]
`), "# The same configuration on Linux has no dependency section.\n"+deploymentYAML("shop", "web-linux", 1, `
os: {name: linux}
containers:
- name: web
  image: nginx:1.27
  resources: {requests: {cpu: 100m, memory: 64Mi}}
  env: [{name: BACKEND, value: "http://backend.shop:8080"}]
`))

func TestDependencies(t *testing.T) {
	t.Parallel()
	c := cluster.Reference()
	res := simulateOn(t, c, depsInput, Input{Cluster: c})
	want := []Dependency{
		{Workload: "Deployment/shop/web", Pool: "windows", Name: "backend.shop", Where: `env BACKEND of container "web"`, Service: "shop/backend",
			Blocked: "a Windows pod treats a name with a dot as fully qualified and has only its namespace's DNS suffix; use backend.shop.svc.cluster.local"},
		{Workload: "Deployment/shop/web", Pool: "windows", Name: "v6", Where: `env V6 of container "web"`, Service: "shop/v6", Resolves: true,
			Blocked: "the Service is IPv6 single-stack, which Windows does not support"},
		{Workload: "Deployment/shop/web", Pool: "windows", Name: "payments.billing.svc.cluster.local", Where: `env PAYMENTS of container "web"`, Service: "billing/payments", Resolves: true,
			Note: "the Service is not in the input"},
		{Workload: "Deployment/shop/web", Pool: "windows", Name: "audit", Where: "ConfigMap web-config key appsettings.json", Service: "shop/audit", Resolves: true,
			Blocked: "NetworkPolicy shop/audit-ingress admits no traffic from it to the Service's pods", Note: "enforced where the backends' nodes enforce NetworkPolicy"},
		{Workload: "Deployment/shop/web", Pool: "windows", Name: "backend.shop.svc.cluster.local", Where: "ConfigMap web-config key appsettings.json", Service: "shop/backend", Resolves: true},
	}
	if d := cmp.Diff(want, res.Dependencies); d != "" {
		t.Errorf("dependencies (-want +got):\n%s", d)
	}
}

// An egress policy over the Windows client blocks it only where its pool
// enforces NetworkPolicy.
func TestDependenciesEgress(t *testing.T) {
	t.Parallel()
	in := yamlDocs(serviceYAML("shop", "backend", "backend", 8080), `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: no-egress, namespace: shop}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Egress]
`, deploymentYAML("shop", "web", 1, windowsWeb+`  env: [{name: BACKEND, value: "http://backend:8080"}]
`))
	for _, tt := range []struct {
		cni, blocked, note string
	}{
		{"calico", "NetworkPolicy shop/no-egress lets it send nothing to the Service's pods", ""},
		{"flannel", "", `NetworkPolicy shop/no-egress would block it, but pool "windows" does not enforce NetworkPolicy`},
		{"", "NetworkPolicy shop/no-egress lets it send nothing to the Service's pods", `if pool "windows" enforces NetworkPolicy (unknown)`},
	} {
		c := cluster.Reference()
		c.Pools[1].CNI = tt.cni
		res := simulateOn(t, c, in, Input{Cluster: c})
		if len(res.Dependencies) != 1 {
			t.Fatalf("cni %q: dependencies %+v, want one", tt.cni, res.Dependencies)
		}
		d := res.Dependencies[0]
		if !d.Resolves || d.Blocked != tt.blocked || d.Note != tt.note {
			t.Errorf("cni %q: resolves %v, blocked %q, note %q; want blocked %q, note %q", tt.cni, d.Resolves, d.Blocked, d.Note, tt.blocked, tt.note)
		}
	}
}
