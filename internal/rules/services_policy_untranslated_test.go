package rules

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
)

const untranslatedPolicy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: iis, namespace: shop}
spec:
  selector:
    matchLabels: {app: iis}
  template:
    metadata:
      labels: {app: iis}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      containers:
      - name: iis
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: shop}
spec:
  podSelector:
    matchExpressions:
    - {key: canary, operator: NotIn, values: ["true"]}
  ingress:
  - from:
    - podSelector:
        matchExpressions:
        - {key: debug, operator: DoesNotExist}
    ports:
    - {protocol: SCTP, port: 9000}
    - port: http
  egress:
  - to:
    - ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}
`

// TestNetworkPolicyUntranslatedEngines: which fields each Windows pool
// reports. Calico for Windows skips rules with ipBlock.except and named
// ports; a pool with Azure CNI and networkPolicy: true may run Azure NPM,
// which also leaves out SCTP and NotIn/DoesNotExist pod selectors; a pool
// whose engine is unknown, or that does not enforce policy, reports none.
func TestNetworkPolicyUntranslatedEngines(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	all := []string{
		"spec.egress[0].to[0].ipBlock.except",
		"spec.ingress[0].from[0].podSelector.matchExpressions[0].operator",
		"spec.ingress[0].ports[0].protocol",
		"spec.ingress[0].ports[1].port",
		"spec.podSelector.matchExpressions[0].operator",
	}
	cases := []struct {
		name   string
		cni    string
		policy *bool
		want   []string
	}{
		{"calico", "calico", nil, []string{"spec.egress[0].to[0].ipBlock.except", "spec.ingress[0].ports[1].port"}},
		{"calico, networkPolicy false", "calico", &no, nil},
		{"azure with network policy", "azure-vnet", &yes, all},
		{"azure, engine unknown", "azure", nil, nil},
		{"flannel", "flannel", nil, nil},
		{"antrea", "antrea", nil, nil},
		{"no cni", "", &yes, nil},
	}
	msgs := map[string]string{}
	for _, c := range cases {
		win := cluster.Pool{Name: "win", Count: 1, OS: "windows", WindowsBuild: "10.0.20348", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), CNI: c.cni, NetworkPolicy: c.policy}
		lin := cluster.Pool{Name: "linux", Count: 1, OS: "linux", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")}
		var got []string
		for _, f := range findings(t, &cluster.Cluster{Pools: []cluster.Pool{lin, win}}, untranslatedPolicy, WindowsNetworkPolicyUntranslated) {
			got = append(got, f.Path)
			if c.name == "azure with network policy" {
				msgs[f.Path] = f.Message
			}
		}
		sort.Strings(got)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: reported paths (-want +got):\n%s", c.name, diff)
		}
	}
	want := map[string]string{
		"spec.egress[0].to[0].ipBlock.except": `ipBlock 0.0.0.0/0 with except 169.254.169.254/32 on Windows pool "win" (cni azure-vnet): Azure Network Policy Manager does not translate the whole NetworkPolicy on Windows ("unsupported Except CIDR block translation features used on windows") and Calico for Windows skips the rule, so it does not apply to Windows pods of Deployment/iis as it does to Linux pods`,
		"spec.ingress[0].ports[0].protocol":   `protocol SCTP on Windows pool "win" (cni azure-vnet): Azure Network Policy Manager does not translate the whole NetworkPolicy on Windows ("unsupported SCTP protocol used on windows"), so it does not apply to Windows pods of Deployment/iis as it does to Linux pods`,
	}
	for p, m := range want {
		if msgs[p] != m {
			t.Errorf("message at %s:\n got %s\nwant %s", p, msgs[p], m)
		}
	}
}
