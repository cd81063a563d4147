package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// The Windows policy engines' own words for what they leave out, from
// projectcalico/calico v3.32.1 felix/dataplane/windows/policysets/policysets.go
// and Azure/azure-container-networking v1.8.12
// npm/pkg/controlplane/translation/translatePolicy.go.
const (
	calicoNegativeMsg  = "Skipping rule because it contains negative matches (currently unsupported)."
	calicoNamedPortMsg = "Skipping rule because it contains named port ipsets (currently unsupported)."
	npmExceptMsg       = "unsupported Except CIDR block translation features used on windows"
	npmNamedPortMsg    = "unsupported namedport translation features used on windows"
	npmNegativeMsg     = "unsupported NotExist operator translation features used on windows"
	npmSCTPMsg         = "unsupported SCTP protocol used on windows"

	// Finding messages: the field, what it is, the pool and what its
	// engine does, the Windows workloads.
	untranslatedCalicoMsg = "%s on Windows pool %s: Calico for Windows skips this rule (%q), so Windows pods of %s do not get the traffic it allows while Linux pods do"
	untranslatedAzureMsg  = "%s on Windows pool %s: Azure Network Policy Manager does not translate the whole NetworkPolicy on Windows (%q)%s, so it does not apply to Windows pods of %s as it does to Linux pods"
	untranslatedAzureBoth = " and Calico for Windows skips the rule"
)

// WindowsNetworkPolicyUntranslated: a NetworkPolicy over Windows pods
// that uses a feature the Windows pool's policy engine leaves out.
var WindowsNetworkPolicyUntranslated = &rule.Rule{
	ID:       "windows-network-policy-untranslated",
	Title:    "NetworkPolicy over Windows pods uses a feature the Windows policy engine leaves out",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports, in NetworkPolicies whose podSelector matches the pod template labels of a Windows workload in the same namespace, the fields the Windows pool's policy engine does not translate: ipBlock.except and ports given by name, on a pool with cni calico, or with cni azure and networkPolicy: true (AKS enforces policy on Windows pools with Azure Network Policy Manager or Calico, and both leave these out); on such an Azure pool also SCTP ports and NotIn or DoesNotExist expressions in the policy's or a peer's podSelector, which Azure Network Policy Manager leaves out on Windows. Pools whose engine is unknown or does not enforce policy (windows-network-policy-not-enforced) are not reported, nor are Linux workloads: the Linux engines translate all of these. Kubernetes NetworkPolicy has no ICMP protocol, so there is no ICMP rule to check; no upstream source documents a Windows-only behaviour of ipBlock rules towards node addresses, so they are not reported.",
		Why:  "Calico turns ipBlock.except into negated nets and a named port into a named-port IP set; its Windows data plane (HNS ACLs) has neither and skips the whole rule, logging \"" + calicoNegativeMsg + "\" or \"" + calicoNamedPortMsg + "\". A skipped allow rule allows nothing, so a Windows pod isolated by the policy loses the traffic the rule allows (all its internet egress, for the common \"0.0.0.0/0 except the metadata address\" rule) while Linux pods keep it. Azure Network Policy Manager on Windows refuses the whole policy instead (\"" + npmExceptMsg + "\", and likewise for named ports, SCTP and NotIn/DoesNotExist pod selectors) and logs that the NetworkPolicy is not translated, so the Windows pods are not isolated by it at all.",
		Fix:  "Write the policy with what the Windows engine translates: list the allowed CIDRs instead of one CIDR with exceptions, give ports by number, use TCP or UDP, and select pods with In or Exists; or keep a separate policy for the Windows pods.",
		Sources: []string{
			"projectcalico/calico v3.32.1 felix/dataplane/windows/policysets/policysets.go protoRuleToHnsRules (rules with negative matches or named port IP sets are skipped on Windows: \"Skipped rule because it's not supported on Windows.\")",
			"projectcalico/calico v3.32.1 libcalico-go/lib/backend/k8s/conversion/conversion.go k8sPeerToCalicoFields (ipBlock.except becomes NotNets)",
			"Azure/azure-container-networking v1.8.12 npm/pkg/controlplane/translation/translatePolicy.go (ErrUnsupportedExceptCIDR, ErrUnsupportedNamedPort, ErrUnsupportedSCTP) and parseSelector.go unsupportedOpsInWindows (NotIn, DoesNotExist)",
			"Azure/azure-container-networking v1.8.12 npm/pkg/controlplane/controllers/v2/networkPolicyController.go (\"NetworkPolicy %s in namespace %s is not translated because it has unsupported translated features of Windows\")",
			"learn.microsoft.com/azure/aks/use-network-policies (Azure Network Policy Manager and Calico for Windows node pools)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		pools := policyEngines(p.Cluster)
		if len(pools) == 0 {
			return
		}
		eachWindowsPolicy(p, func(obj *manifest.Object, np *networkingv1.NetworkPolicy, ws []rule.Summary) {
			for _, u := range untranslated(np) {
				for _, pool := range pools {
					if msg, ok := pool.message(u, svcRefs(ws)); ok {
						p.Report(obj, rule.Finding{Path: rule.Path(u.path), Message: msg, Hint: u.fix})
						break
					}
				}
			}
		})
	},
}

// policyEngine is a Windows pool that enforces NetworkPolicy with a policy
// engine whose Windows limits are known.
type policyEngine struct {
	name   string // `"win" (cni calico)`
	calico bool   // Calico for Windows; else an Azure CNI pool (Azure NPM or Calico)
}

// policyEngines lists the Windows pools whose engine is known: cni
// calico, or cni azure with networkPolicy: true.
func policyEngines(c *cluster.Cluster) []policyEngine {
	var out []policyEngine
	for _, pool := range c.PoolsOf("windows") {
		cni, _ := cluster.CNIOf(pool.CNI)
		name := fmt.Sprintf("%q (cni %s)", pool.Name, pool.CNI)
		switch {
		case cni.Name == "calico" && (pool.NetworkPolicy == nil || *pool.NetworkPolicy):
			out = append(out, policyEngine{name: name, calico: true})
		case cni.Name == "azure" && pool.NetworkPolicy != nil && *pool.NetworkPolicy:
			out = append(out, policyEngine{name: name})
		}
	}
	return out
}

// message says what the pool's engine does with a left-out feature;
// false when its engine translates the feature.
func (e policyEngine) message(u leftOut, workloads string) (string, bool) {
	if e.calico {
		if u.calico == "" {
			return "", false
		}
		return fmt.Sprintf(untranslatedCalicoMsg, u.what, e.name, u.calico, workloads), true
	}
	both := ""
	if u.calico != "" {
		both = untranslatedAzureBoth
	}
	return fmt.Sprintf(untranslatedAzureMsg, u.what, e.name, u.npm, both, workloads), true
}

// leftOut is one field of a policy a Windows engine does not translate:
// where, what, the Calico log line when Calico skips it ("" when Calico
// translates it) and Azure NPM's error.
type leftOut struct {
	path        *field.Path
	what        string
	calico, npm string
	fix         string
}

// untranslated lists the fields of the policy that a Windows policy engine
// leaves out.
func untranslated(np *networkingv1.NetworkPolicy) []leftOut {
	spec := field.NewPath("spec")
	var out []leftOut
	out = append(out, negativeSelector(spec.Child("podSelector"), &np.Spec.PodSelector)...)
	for i, r := range np.Spec.Ingress {
		at := spec.Child("ingress").Index(i)
		out = append(out, peersLeftOut(at.Child("from"), r.From)...)
		out = append(out, portsLeftOut(at.Child("ports"), r.Ports)...)
	}
	for i, r := range np.Spec.Egress {
		at := spec.Child("egress").Index(i)
		out = append(out, peersLeftOut(at.Child("to"), r.To)...)
		out = append(out, portsLeftOut(at.Child("ports"), r.Ports)...)
	}
	return out
}

func peersLeftOut(at *field.Path, peers []networkingv1.NetworkPolicyPeer) []leftOut {
	var out []leftOut
	for i, peer := range peers {
		pp := at.Index(i)
		if peer.IPBlock != nil && len(peer.IPBlock.Except) > 0 {
			out = append(out, leftOut{path: pp.Child("ipBlock", "except"),
				what:   fmt.Sprintf("ipBlock %s with except %s", peer.IPBlock.CIDR, strings.Join(peer.IPBlock.Except, ", ")),
				calico: calicoNegativeMsg, npm: npmExceptMsg,
				fix: "list the CIDRs the rule allows instead of one CIDR with exceptions"})
		}
		if peer.PodSelector != nil {
			out = append(out, negativeSelector(pp.Child("podSelector"), peer.PodSelector)...)
		}
	}
	return out
}

func portsLeftOut(at *field.Path, ports []networkingv1.NetworkPolicyPort) []leftOut {
	var out []leftOut
	for i, port := range ports {
		pp := at.Index(i)
		if port.Port != nil && port.Port.IntValue() == 0 && port.Port.String() != "" {
			out = append(out, leftOut{path: pp.Child("port"),
				what:   fmt.Sprintf("the named port %q", port.Port.String()),
				calico: calicoNamedPortMsg, npm: npmNamedPortMsg,
				fix: "give the port by number"})
		}
		if port.Protocol != nil && *port.Protocol == corev1.ProtocolSCTP {
			out = append(out, leftOut{path: pp.Child("protocol"),
				what: "protocol SCTP", npm: npmSCTPMsg,
				fix: "keep the SCTP rule in a policy that does not select Windows pods"})
		}
	}
	return out
}

// negativeSelector reports NotIn and DoesNotExist expressions, which
// Azure NPM does not translate on Windows (Calico does).
func negativeSelector(at *field.Path, sel *metav1.LabelSelector) []leftOut {
	var out []leftOut
	for i, e := range sel.MatchExpressions {
		if e.Operator != metav1.LabelSelectorOpNotIn && e.Operator != metav1.LabelSelectorOpDoesNotExist {
			continue
		}
		out = append(out, leftOut{path: at.Child("matchExpressions").Index(i).Child("operator"),
			what: fmt.Sprintf("a %s selector on %s", e.Operator, e.Key), npm: npmNegativeMsg,
			fix: "select the pods with In or Exists"})
	}
	return out
}
