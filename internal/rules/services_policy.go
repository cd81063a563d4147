package rules

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

// WindowsNetworkPolicyNotEnforced: a NetworkPolicy over Windows pods on
// nodes whose CNI ignores it.
var WindowsNetworkPolicyNotEnforced = &rule.Rule{
	ID:       "windows-network-policy-not-enforced",
	Title:    "NetworkPolicy selects Windows pods on a pool that does not enforce NetworkPolicy",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports NetworkPolicies whose podSelector matches the pod template labels of a Windows workload in the same namespace when a Windows pool of the cluster profile does not enforce NetworkPolicy: its networkPolicy field is false, or its cni is one known not to enforce it (win-bridge, win-overlay, flannel). Pools whose enforcement is unknown (no cni, Azure CNI without networkPolicy, another plugin) are never reported. Decided by the cluster profile and the input together, not by one object.",
		Why:  "NetworkPolicy is implemented by the network plugin, not by Kubernetes: on a plugin that does not implement it the API server accepts the policy and nothing happens, so Windows pods on those nodes stay open to all traffic while the same policy isolates Linux pods. Calico and Antrea enforce NetworkPolicy on Windows; the reference plugins win-bridge and win-overlay and flannel (which delegates to them) do not; Azure CNI does only with Azure Network Policy Manager.",
		Fix:  "Run the Windows workload on a pool whose CNI enforces NetworkPolicy (Calico, Antrea, Azure CNI with its network policy manager), or enforce the isolation elsewhere; when the pool does enforce policy, set networkPolicy: true on it in the cluster file.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/network-policies, Prerequisites (network policies are implemented by the network plugin; creating one without a controller that implements it has no effect)",
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Network modes (win-bridge, win-overlay, flannel delegating to them, Azure CNI)",
			"learn.microsoft.com/azure/aks/use-network-policies (Azure Network Policy Manager for Windows nodes)",
			"docs.tigera.io/calico/latest/getting-started/kubernetes/windows-calico; antrea.io/docs/main/docs/windows (NetworkPolicy on Windows)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		pools := nonEnforcingPools(p.Cluster)
		if len(pools) == 0 {
			return
		}
		eachWindowsPolicy(p, func(obj *manifest.Object, _ *networkingv1.NetworkPolicy, ws []rule.Summary) {
			p.Report(obj, rule.Finding{
				Path:    "spec.podSelector",
				Message: fmt.Sprintf("NetworkPolicy selects Windows pods of %s, but %s; the policy has no effect on Windows pods there", svcRefs(ws), strings.Join(pools, ", ")),
				Hint:    "run the workload on a pool whose CNI enforces NetworkPolicy (Calico, Antrea, Azure CNI with Azure NPM), or set networkPolicy: true on the pool if it does",
			})
		})
	},
}

// eachWindowsPolicy calls fn for each NetworkPolicy of the input whose pod
// selector matches Windows workloads (policyWindowsPods), with them.
func eachWindowsPolicy(p *rule.CorpusPass, fn func(obj *manifest.Object, np *networkingv1.NetworkPolicy, ws []rule.Summary)) {
	for _, obj := range p.NetworkPolicies {
		np, _ := obj.Typed.(*networkingv1.NetworkPolicy)
		if np == nil {
			continue
		}
		if ws := policyWindowsPods(p, obj.Namespace, &np.Spec.PodSelector); len(ws) > 0 {
			fn(obj, np, ws)
		}
	}
}

// nonEnforcingPools describes the Windows pools known not to enforce
// NetworkPolicy: `pool "win" (cni flannel) does not enforce NetworkPolicy`.
func nonEnforcingPools(c *cluster.Cluster) []string {
	var out []string
	for _, pool := range c.PoolsOf("windows") {
		enforces, known := pool.EnforcesNetworkPolicy()
		if !known || enforces {
			continue
		}
		how := "networkPolicy: false"
		if pool.NetworkPolicy == nil {
			how = "cni " + pool.CNI
		}
		out = append(out, fmt.Sprintf("pool %q (%s) does not enforce NetworkPolicy", pool.Name, how))
	}
	return out
}

// policyWindowsPods returns the Windows workloads in the policy's
// namespace whose pod template labels the selector matches (an empty
// selector matches every pod of the namespace).
func policyWindowsPods(p *rule.CorpusPass, namespace string, sel *metav1.LabelSelector) []rule.Summary {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil
	}
	ns := svcNamespace(namespace)
	var out []rule.Summary
	for _, w := range p.Workloads {
		if w.OS == target.Windows && svcNamespace(w.Namespace) == ns && s.Matches(labels.Set(w.Labels)) {
			out = append(out, w)
		}
	}
	return out
}
