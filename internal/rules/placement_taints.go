package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

// Messages of toleration-without-selector and linux-daemonset-unpinned;
// the exported admission policies build theirs from the same templates.
const (
	// TolerationTaintMsg and BlanketTolerationMsg: the taint, the pool;
	// NoWindowsPinMsg follows either.
	TolerationTaintMsg   = "toleration tolerates taint %s of Windows pool %q"
	BlanketTolerationMsg = "toleration with operator Exists and no key tolerates every taint, %s of Windows pool %q included,"
	NoWindowsPinMsg      = " but nothing pins the workload to Windows: its pods can land on Linux or Windows nodes"
	// LinuxDaemonSetWho names a DaemonSet for Linux (from what says so);
	// DaemonSetOnWindowsMsg and DaemonSetTaintsOnlyMsg: who, "pool" or
	// "pools", the pools.
	LinuxDaemonSetWho      = "Linux DaemonSet (from %s)"
	DaemonSetOnWindowsMsg  = "%s is not pinned to Linux and will run a pod on every node of Windows %s %s, where Linux containers cannot start"
	DaemonSetTaintsOnlyMsg = "%s is not pinned to Linux; only taints keep it off Windows %s %s"
)

// TolerationWithoutSelector: a toleration lets pods onto Windows nodes but
// does not send them there.
var TolerationWithoutSelector = &rule.Rule{
	ID:       "toleration-without-selector",
	Title:    "Workload tolerates the Windows taint but is not pinned to Windows",
	Severity: rule.Warning,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports workloads (DaemonSets excepted, see linux-daemonset-unpinned) that tolerate every NoSchedule and NoExecute taint of one of the cluster's tainted Windows pools while their nodeSelector, required node affinity and RuntimeClass admit both Linux and Windows nodes. A blanket toleration (operator: Exists with no key) counts: it tolerates the Windows taint like any other. Tolerations merged in from the RuntimeClass count too.",
		Why:  "A toleration only permits; it never attracts. A workload that tolerates os=windows:NoSchedule but has no kubernetes.io/os selector is spread over Linux and Windows nodes, so some of its pods land on the wrong OS and fail to start: a Windows image on Linux, or a Linux image on Windows.",
		Fix:  "Add nodeSelector kubernetes.io/os: windows next to the toleration (winkube fix does when the workload's OS is known), or remove the toleration from a Linux workload.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (the dual constraint: nodeSelector plus toleration)",
			"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (a Windows pod needs both the nodeSelector and the matching toleration)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if isDaemonSet(p) || !p.Cluster.Hybrid() || !schedulableOn(f, target.Linux) || !schedulableOn(f, target.Windows) {
			return
		}
		reachable, _ := windowsPools(p)
		for _, pool := range reachable {
			taints := schedulingTaints(pool)
			if len(taints) == 0 {
				continue // an untainted pool needs no toleration; missing-os-pin covers it
			}
			i, _ := toleratingIndex(f.Tolerations, taints[0])
			path := p.Workload.SpecPath.Child("tolerations").Index(i)
			what := fmt.Sprintf(TolerationTaintMsg, taintString(taints[0]), pool.Name)
			if blanket(f.Tolerations[i]) {
				what = fmt.Sprintf(BlanketTolerationMsg, taintString(taints[0]), pool.Name)
			}
			if i >= len(p.Workload.Spec.Tolerations) {
				path = p.Workload.SpecPath.Child("runtimeClassName")
				what = fmt.Sprintf("RuntimeClass %q adds a toleration of taint %s of Windows pool %q", f.RuntimeClassName, taintString(taints[0]), pool.Name)
			}
			fd := rule.Finding{Path: rule.Path(path),
				Message: what + NoWindowsPinMsg}
			switch f.OS {
			case target.Windows, target.Linux:
				fd.Hint = fmt.Sprintf("the workload is for %s (from %s): add nodeSelector kubernetes.io/os: %s", osWord(f.OS), f.By, f.OS)
				fd.Fix = pinFix(p, string(f.OS))
			default:
				fd.Hint = "add nodeSelector kubernetes.io/os: windows, or drop the toleration if the workload is for Linux"
			}
			p.Report(fd)
			return
		}
	},
}

// LinuxDaemonSetUnpinned: a DaemonSet places a pod on every node it may,
// Windows nodes included.
var LinuxDaemonSetUnpinned = &rule.Rule{
	ID:       "linux-daemonset-unpinned",
	Title:    "DaemonSet would run on Windows nodes",
	Severity: rule.Error,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports DaemonSets that are not Windows-bound and whose nodeSelector, required node affinity and RuntimeClass do not keep them off Windows nodes. It is an error when a Windows pool is untainted or the DaemonSet tolerates all of its taints (blanket operator: Exists tolerations are common in CNI and log agents); a warning when only the Windows taint keeps it off. The message names the Windows pools.",
		Why:  "The DaemonSet controller creates one pod for every node the pod fits, with no regard to the OS. Node exporters, log shippers and CNI agents are Linux programs: on a Windows node their pods fail to pull or crash-loop, forever, and hold the node's pod slots. The taint is a safety net that a blanket toleration removes and that not every cluster has.",
		Fix:  "Add nodeSelector kubernetes.io/os: linux to the pod template (winkube fix does). Run the Windows build of the agent, if there is one, as a separate DaemonSet pinned to windows.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (node-exporter and Fluentd DaemonSets work on Linux only; every pod in a hybrid cluster should have a kubernetes.io/os nodeSelector)",
			"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (tainting Windows nodes keeps existing Linux pods off them)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if !isDaemonSet(p) || f.Is(target.Windows) || !schedulableOn(f, target.Windows) {
			return
		}
		reachable, tainted := windowsPools(p)
		who := "DaemonSet"
		if f.Is(target.Linux) {
			who = fmt.Sprintf(LinuxDaemonSetWho, f.By)
		}
		fd := rule.Finding{Path: rule.Path(p.Workload.SpecPath.Child("nodeSelector")), Fix: pinFix(p, "linux")}
		switch {
		case len(reachable) > 0:
			fd.Message = fmt.Sprintf(DaemonSetOnWindowsMsg,
				who, plural(len(reachable), "pool", "pools"), poolList(reachable, openReason))
		case len(tainted) > 0:
			fd.Message = fmt.Sprintf(DaemonSetTaintsOnlyMsg,
				who, plural(len(tainted), "pool", "pools"), poolList(tainted, func(pool cluster.Pool) string {
					return taintString(untolerated(pool, f.Tolerations)[0])
				}))
			fd = fd.WithSeverity(rule.Warning)
		default:
			return
		}
		p.Report(fd)
	},
}

// openReason says why a Windows pool admits the DaemonSet.
func openReason(pool cluster.Pool) string {
	if len(schedulingTaints(pool)) == 0 {
		return "untainted"
	}
	return "its tolerations cover the pool's taints"
}

// assumedToleration judges a Windows workload's tolerations when no
// cluster profile was given. The input's own Windows taint convention, if
// it has one, is the evidence: the workload must tolerate it. Without one,
// a toleration of any known convention is evidence of the cluster the
// workload was written for, and a workload with none gets a warning that
// names the assumed taint. It decides f, the finding at the tolerations'
// path, and reports whether to keep it. A DaemonSet's pods do not wait
// Pending: its controller creates none for a node whose taint they do not
// tolerate, so the message says that. A workload whose pods name their
// node (named) is judged only against a NoExecute convention, the one
// taint effect its kubelet checks.
func assumedToleration(in *rule.Evidence, tols []corev1.Toleration, path string, daemonSet, named bool, f *rule.Finding) bool {
	if c := in.WindowsTaint; c != nil {
		if tolerates(tols, &c.Taint) || (named && c.Taint.Effect != corev1.TaintEffectNoExecute) {
			return false
		}
		t := c.Taint
		f.Message = fmt.Sprintf("%d of %d Windows workloads in this input tolerate %s; this one does not, so on nodes with that taint its pods stay Pending",
			c.Tolerating, in.WindowsWorkloads, taintString(t))
		if named {
			f.Message = fmt.Sprintf("%d of %d Windows workloads in this input tolerate %s; this one names its node (spec.nodeName) and does not, so on nodes with that taint the kubelet rejects its pods",
				c.Tolerating, in.WindowsWorkloads, taintString(t))
		} else if daemonSet {
			f.Message = fmt.Sprintf("%d of %d Windows workloads in this input tolerate %s; this DaemonSet does not, so it runs no pod on nodes with that taint",
				c.Tolerating, in.WindowsWorkloads, taintString(t))
		}
		f.Hint = "no cluster profile was given, so the input's own convention stands for your cluster's: tolerate it too, or pass --cluster aks|eks|gke|openshift or a cluster file"
		if _, ok := caseOnlyMismatch(tols, t); ok {
			f.Hint = "its toleration differs from the taint only in letter case, and taints are case-sensitive; " + f.Hint
		} else if other, ok := toleratedConvention(tols); ok {
			f.Hint = fmt.Sprintf("it tolerates %s instead; %s", taintString(other), f.Hint)
		}
		f.Fix = tolerateFix(t, path)
		*f = f.WithSeverity(rule.Warning)
		return true
	}
	if _, ok := toleratedConvention(tols); ok || named {
		return false // the assumed taint is NoSchedule, which a named pod's kubelet does not check
	}
	t := cluster.WindowsTaint
	f.Message = fmt.Sprintf("if your Windows nodes carry the recommended taint %s, this workload's pods stay Pending: it tolerates no Windows taint", taintString(t))
	if daemonSet {
		f.Message = fmt.Sprintf("if your Windows nodes carry the recommended taint %s, this DaemonSet runs no pod on them: it tolerates no Windows taint", taintString(t))
	}
	f.Hint = "no cluster profile was given, so the taint is assumed; AKS and EKS add none by default, GKE uses node.kubernetes.io/os=windows, OpenShift os=Windows: pass --cluster aks|eks|gke|openshift or a cluster file"
	f.Fix = tolerateFix(t, path)
	*f = f.WithSeverity(rule.Warning)
	return true
}

// toleratedConvention returns the first known Windows taint convention the
// tolerations tolerate, else the first Windows taint they name under a
// cluster's own spelling (cluster.WindowsTaintNamed: K2s's OS=Windows).
func toleratedConvention(tols []corev1.Toleration) (corev1.Taint, bool) {
	for _, t := range cluster.KnownWindowsTaints() {
		if tolerates(tols, &t) {
			return t, true
		}
	}
	for _, tol := range tols {
		if t, ok := cluster.WindowsTaintNamed(tol); ok {
			return t, true
		}
	}
	return corev1.Taint{}, false
}

// tolerateFix appends the toleration of t to the list at path.
func tolerateFix(t corev1.Taint, path string) *rule.Fix {
	return &rule.Fix{Title: "tolerate " + taintString(t), Safe: true,
		Edits: []rule.Edit{{Op: rule.Append, Path: path, Value: tolerationFor(t)}}}
}
