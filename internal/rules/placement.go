package rules

import (
	corev1 "k8s.io/api/core/v1"

	"fmt"
	"slices"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

var placementRules = []*rule.Rule{
	MissingOSPin,
	MissingWindowsToleration,
	TolerationWithoutSelector,
	ConflictingOSSignals,
	MissingSpecOS,
	MissingWindowsBuildPin,
	LinuxDaemonSetUnpinned,
	LegacyNodeLabel,
	WindowsPoolUntainted,
	OSLabelTypo,
	HostProcessBuildPin,
}

// Message templates of missing-os-pin and missing-windows-toleration,
// declared once: the rules format them with fmt, and the exported
// admission policy (internal/policy) renders the same templates as CEL.
const (
	MissingOSPinWindowsMsg       = "Windows workload (from %s) has no kubernetes.io/os selector; the scheduler ignores spec.os.name and may bind it to a Linux node"
	MissingOSPinLinuxMsg         = "Linux workload (from %s) has no kubernetes.io/os selector; it may be scheduled onto a Windows node"
	MissingOSPinAnyMsg           = "workload has no kubernetes.io/os selector and may be scheduled onto Linux or Windows nodes"
	TaintCaseMsg                 = "toleration does not match taint %s of the Windows nodes: taints are case-sensitive"
	UntoleratedTaintMsg          = "Windows workload does not tolerate taint %s of Windows pool %q; its pods will stay Pending"
	UntoleratedTaintDaemonSetMsg = "Windows DaemonSet does not tolerate taint %s of Windows pool %q; it runs no pod on the pool's nodes"
	UntoleratedTaintNamedMsg     = "Windows workload names its node (spec.nodeName) and does not tolerate NoExecute taint %s of Windows pool %q; on that pool's nodes the kubelet rejects its pods: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate"
)

// MissingOSPin: a workload the scheduler may place on either OS.
var MissingOSPin = &rule.Rule{
	ID:       "missing-os-pin",
	Title:    "Workload is not pinned to an operating system",
	Severity: rule.Warning,
	Category: rule.Placement,
	Doc: rule.Doc{
		What:    "In a cluster with Linux and Windows nodes, reports workloads whose nodeSelector, required node affinity and RuntimeClass do not constrain kubernetes.io/os. A workload that is clearly Windows (spec.os.name, HostProcess, Windows images) is an error; any other is a warning. DaemonSets that are not Windows-bound are left to linux-daemonset-unpinned.",
		Why:     "The scheduler does not read spec.os.name or image names: without a kubernetes.io/os constraint a Windows pod can be bound to a Linux node and fail to start, and a Linux pod can land on an untainted Windows node and crash-loop, wasting Windows capacity. Tolerations never pin a pod.",
		Fix:     "Add nodeSelector kubernetes.io/os: linux or windows to the pod template (winkube fix does this when the OS is known).",
		Sources: []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (every pod in a hybrid cluster should have a nodeSelector for kubernetes.io/os)", "https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (the scheduler does not use spec.os.name)"},
	},
	Workload: func(p *rule.Pass) {
		if !p.Cluster.Hybrid() || p.Target.Pinned || len(p.Target.Schedulable) == 0 {
			return
		}
		if !p.Target.Is(target.Windows) && controlPlaneOnly(p.Workload.Spec) {
			return // control-plane nodes are always Linux
		}
		if isDaemonSet(p) && !p.Target.Is(target.Windows) {
			return // linux-daemonset-unpinned says it better
		}
		sel := p.Workload.SpecPath.Child("nodeSelector")
		switch p.Target.OS {
		case target.Windows:
			p.Report(rule.Finding{
				Path:    rule.Path(sel),
				Message: fmt.Sprintf(MissingOSPinWindowsMsg, p.Target.By),
				Fix:     pinFix(p, "windows"),
			}.WithSeverity(rule.Error))
		case target.Linux:
			p.Report(rule.Finding{Path: rule.Path(sel),
				Message: fmt.Sprintf(MissingOSPinLinuxMsg, p.Target.By),
				Fix:     pinFix(p, "linux")})
		default:
			p.Report(rule.Finding{Path: rule.Path(sel),
				Message: MissingOSPinAnyMsg,
				Hint:    "add nodeSelector kubernetes.io/os: linux (or windows)"})
		}
	},
}

func pinFix(p *rule.Pass, os string) *rule.Fix {
	return &rule.Fix{Title: "pin the workload to " + os + " nodes", Safe: true, Edits: []rule.Edit{
		{Op: rule.Set, Path: rule.Path(p.Workload.SpecPath.Child("nodeSelector").Key("kubernetes.io/os")), Value: os},
	}}
}

// MissingWindowsToleration: a Windows workload that cannot tolerate the
// Windows nodes' taints stays Pending.
var MissingWindowsToleration = &rule.Rule{
	ID:       "missing-windows-toleration",
	Title:    "Windows workload does not tolerate the Windows node taint",
	Severity: rule.Error,
	Category: rule.Placement,
	Doc: rule.Doc{
		What:    "Reports workloads pinned to Windows that do not tolerate a NoSchedule or NoExecute taint carried by the cluster's Windows pools; the cluster profile says which (aks and eks: none, gke: node.kubernetes.io/os=windows, openshift: os=Windows, reference: os=windows). A toleration that differs from the taint only in letter case is named once, since taints are matched case-sensitively. With no profile at all the taint is an assumption, and the input is the evidence: when more of the input's Windows workloads tolerate one convention than any other, and at least half of them do, every Windows workload is checked against that convention and the warning says how many follow it; otherwise a workload that tolerates any convention is taken at its word. The conventions are the built-in profiles' (os=windows, os=Windows, node.kubernetes.io/os=windows) and any Windows taint the input's tolerations spell their own way: an os or .../os key with the value windows in any letter case (K2s taints its Windows nodes OS=Windows:NoSchedule), and one that tolerates none gets a warning that names the assumed taint. Without a profile it is never an error. A single object (the webhook's) sets no convention for others. A workload whose pods name their node (spec.nodeName) bypasses the scheduler, and the kubelet admits it whatever its NoSchedule taints: only an untolerated NoExecute taint is reported for it (with no profile, only a NoExecute convention).",
		Why:     "Windows nodes are tainted so that Linux pods stay off them. A Windows pod needs both the selector and the toleration; with only the selector it stays Pending with `node(s) had untolerated taint`, and a DaemonSet silently runs no pod on the tainted nodes (its controller skips a node whose NoSchedule taints the pod does not tolerate).",
		Fix:     "Add the toleration for the Windows taint (winkube fix adds the one from the cluster profile), or use a RuntimeClass whose scheduling carries it.",
		Sources: []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (taints and tolerations, the dual constraint)", "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (--register-with-taints='os=windows:NoSchedule')", "k8s.io/kubernetes v1.36.3 pkg/controller/daemon/daemon_controller.go NodeShouldRunDaemonPod (no pod for a node with an untolerated NoSchedule taint)", "k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go generalFilter (a pod bound by spec.nodeName is checked against NoExecute taints only: \"Kubelet is only interested in the NoExecute taint\")"},
	},
	Workload: func(p *rule.Pass) {
		if !p.Target.Is(target.Windows) || !p.Target.Pinned {
			return
		}
		tolPath := p.Workload.SpecPath.Child("tolerations")
		// A pod bound by spec.nodeName never meets the scheduler; its
		// kubelet checks only NoExecute taints (lifecycle.generalFilter).
		named := p.Workload.Spec.NodeName != ""
		if p.Cluster.Assumed {
			// The input's own convention, known once it is read, stands in
			// for the profile that was not given.
			tols, path, ds := slices.Clone(p.Target.Tolerations), rule.Path(tolPath), isDaemonSet(p)
			p.Later(rule.Finding{Path: path}, func(in *rule.Evidence, f *rule.Finding) bool {
				return assumedToleration(in, tols, path, ds, named, f)
			})
			return
		}
		for _, pool := range p.Cluster.PoolsOf("windows") {
			if !buildAllowed(p, pool) {
				continue // a build pin keeps the pods off this pool whatever its taints
			}
			for _, t := range untolerated(pool, p.Target.Tolerations) {
				if named && t.Effect != corev1.TaintEffectNoExecute {
					continue
				}
				if i, ok := caseOnlyMismatch(p.Target.Tolerations, t); ok && i < len(p.Workload.Spec.Tolerations) {
					p.Report(rule.Finding{Path: rule.Path(tolPath.Index(i)),
						Message: fmt.Sprintf(TaintCaseMsg, taintString(t)),
						Hint:    "spell the key and value exactly as the taint does"})
					return
				}
				msg := fmt.Sprintf(UntoleratedTaintMsg, taintString(t), pool.Name)
				if named {
					msg = fmt.Sprintf(UntoleratedTaintNamedMsg, taintString(t), pool.Name)
				} else if isDaemonSet(p) {
					// The DaemonSet controller creates no pod for a node
					// whose NoSchedule taints the pod does not tolerate.
					msg = fmt.Sprintf(UntoleratedTaintDaemonSetMsg, taintString(t), pool.Name)
				}
				p.Report(rule.Finding{Path: rule.Path(tolPath),
					Message: msg,
					Fix: &rule.Fix{Title: "tolerate " + taintString(t), Safe: true,
						Edits: []rule.Edit{{Op: rule.Append, Path: rule.Path(tolPath), Value: tolerationFor(t)}}}})
				return
			}
		}
	},
}

// osWord is "Windows" or "Linux" for messages.
func osWord(os target.OS) string {
	if os == target.Windows {
		return "Windows"
	}
	return strings.ToUpper(string(os[:1])) + string(os[1:])
}

// controlPlaneRoles are the node-role labels of control-plane nodes,
// which Kubernetes runs on Linux only.
var controlPlaneRoles = []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/controlplane", "node-role.kubernetes.io/master"}

// controlPlaneOnly reports whether the pod's nodeSelector or every term of
// its required node affinity selects control-plane nodes.
func controlPlaneOnly(s *corev1.PodSpec) bool {
	for _, k := range controlPlaneRoles {
		if _, ok := s.NodeSelector[k]; ok {
			return true
		}
	}
	a := s.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for _, t := range terms {
		found := false
		for _, e := range t.MatchExpressions {
			if slices.Contains(controlPlaneRoles, e.Key) && e.Operator == corev1.NodeSelectorOpExists {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return len(terms) > 0
}
