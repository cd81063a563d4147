package audit

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

var windowsNodeUntainted = &rule.Rule{ID: "windows-node-untainted", Title: "A Windows node has no NoSchedule taint while some Linux workloads are not pinned", Severity: rule.Error, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "A Windows node carries no NoSchedule or NoExecute taint while at least one workload that is not for Windows is not pinned to Linux by its node selector or affinity.",
		Why:     "Without the taint the scheduler may place those Linux pods on the Windows node, where the kubelet refuses them or the runtime cannot pull a Linux image.",
		Fix:     "Taint every Windows node: kubectl taint nodes NODE os=windows:NoSchedule, and give Windows workloads the matching toleration; or pin every Linux workload with nodeSelector kubernetes.io/os: linux.",
		Sources: []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (Production best practices: always taint Windows nodes)", "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (every pod should have a nodeSelector for kubernetes.io/os)"},
	},
	Run: NodeRun(func(f *Facts, e emitter) {
		var unpinned []string
		for _, w := range f.Workloads {
			if w.Facts.OS != target.Windows && !(w.Facts.Pinned && w.Facts.Schedulable[0] == target.Linux) {
				unpinned = append(unpinned, w.Object.Ref())
			}
		}
		if len(unpinned) == 0 {
			return
		}
		sort.Strings(unpinned)
		for _, n := range f.Snapshot.Nodes {
			if !Windows(n) || cluster.Repels(n.Spec.Taints) {
				continue
			}
			e.report(nodeObject(n), "spec.taints", fmt.Sprintf("Windows node %s has no NoSchedule or NoExecute taint, and %d workload(s) not for Windows are not pinned to Linux, e.g. %s", n.Name, len(unpinned), strings.Join(first(unpinned, 3), ", ")),
				fmt.Sprintf("kubectl taint nodes %s os=windows:NoSchedule", n.Name))
		}
	}),
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

const buildLabelPath = "metadata.labels[" + cluster.LabelWindowsBuild + "]"

var windowsNodeBuildLabelMissing = &rule.Rule{ID: "windows-node-build-label-missing", Title: "A Windows node has no node.kubernetes.io/windows-build label", Severity: rule.Warning, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "A Windows node lacks the node.kubernetes.io/windows-build label the kubelet sets from the host's build.",
		Why:     "Workloads and RuntimeClasses select Windows builds with this label: process-isolated containers must match the host build, so a node without it takes no build-pinned pod.",
		Fix:     "Let the kubelet label the node (it does from Kubernetes 1.17), or label it: kubectl label node NODE node.kubernetes.io/windows-build=10.0.20348.",
		Sources: []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (pin pods to Windows builds with node.kubernetes.io/windows-build)", "https://kubernetes.io/docs/concepts/containers/runtime-class/#scheduling (RuntimeClass scheduling by build)"},
	},
	Run: windowsNodes(func(_ *Facts, n *corev1.Node, e emitter) {
		if n.Labels[cluster.LabelWindowsBuild] != "" {
			return
		}
		hint := "kubectl label node " + n.Name + " " + cluster.LabelWindowsBuild + "=BUILD"
		if b := cluster.KernelBuild(n); b != "" {
			hint = "kubectl label node " + n.Name + " " + cluster.LabelWindowsBuild + "=" + b
		}
		e.report(nodeObject(n), buildLabelPath, fmt.Sprintf("Windows node %s has no %s label", n.Name, cluster.LabelWindowsBuild), hint)
	}),
}

var windowsNodeBuildLabelMismatch = &rule.Rule{ID: "windows-node-build-label-mismatch", Title: "A Windows node's build label disagrees with its kernel version", Severity: rule.Error, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "The node.kubernetes.io/windows-build label names a different build from status.nodeInfo.kernelVersion, which the kubelet reads from the host.",
		Why:     "Pods pinned to the labelled build land on a host of another build, where process-isolated containers fail with 'the container operating system does not match the host operating system'.",
		Fix:     "Correct the label to the kernel's build (its first three parts), or remove it and let the kubelet set it.",
		Sources: []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (runbook: image OS mismatch; build numbers)"},
	},
	Run: windowsNodes(func(_ *Facts, n *corev1.Node, e emitter) {
		label, b := n.Labels[cluster.LabelWindowsBuild], cluster.KernelBuild(n)
		if label != "" && b != "" && label != b {
			e.report(nodeObject(n), buildLabelPath, fmt.Sprintf("Windows node %s is labelled %s=%s but its kernel version is %s (build %s)", n.Name, cluster.LabelWindowsBuild, label, n.Status.NodeInfo.KernelVersion, b),
				fmt.Sprintf("kubectl label node %s --overwrite %s=%s", n.Name, cluster.LabelWindowsBuild, b))
		}
	}),
}

var windowsNodeUnsupportedBuild = &rule.Rule{ID: "windows-node-unsupported-build", Title: "A Windows node runs a build the cluster's Kubernetes version does not support", Severity: rule.Error, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "The node's Windows build (from its kernel version, else its build label) is not a supported node OS for the API server's Kubernetes release.",
		Why:     "Semi-Annual Channel releases are out of support and Windows Server 2019 is not listed for current releases; such nodes get no fixes and images for them are no longer published.",
		Fix:     "Replace the node with one running a supported LTSC build (Windows Server 2022 or 2025) and retag its images.",
		Sources: []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (OS compatibility matrix; use LTSC releases only)", "https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (supported Windows Server versions)"},
	},
	Run: windowsNodes(func(f *Facts, n *corev1.Node, e emitter) {
		b, ok := f.Model.BuildByNumber(cluster.NodeBuild(n))
		if !ok || f.Model.NodeSupported(b) {
			return
		}
		hint := ""
		if s, ok := f.Model.LTSCFor(nil); ok {
			hint = "move the node's workloads to " + s.Name + " (" + s.Build + ") nodes"
		}
		e.report(nodeObject(n), "status.nodeInfo.kernelVersion", fmt.Sprintf("Windows node %s runs %s (build %s), which Kubernetes %s does not support as a node OS (supported: %s)", n.Name, b.Name, b.Build, f.Server, b.Supports), hint)
	}),
}

// minReserve is the memory a Windows node should hold back from pods.
var minReserve = resource.MustParse("2Gi")

var windowsNodeLowReserve = &rule.Rule{ID: "windows-node-low-reserve", Title: "A Windows node reserves less than 2 GiB of memory for the OS", Severity: rule.Warning, Category: CategoryCapacity, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "Capacity minus allocatable memory (kube-reserved, system-reserved and the eviction threshold together) is under 2 GiB on a Windows node.",
		Why:     "Windows and its services use about 3.5 GB on a node; with a small reserve pods are scheduled into memory the OS needs, and Windows has no OOM killer to protect it.",
		Fix:     "Raise the kubelet's --system-reserved/--kube-reserved memory so that at least 2 GiB is reserved.",
		Sources: []string{"https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (resource recommendations: ~3.5 GB OS overhead)", "https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (memory reservations on Windows nodes)"},
	},
	Run: windowsNodes(func(_ *Facts, n *corev1.Node, e emitter) {
		c, okc := n.Status.Capacity[corev1.ResourceMemory]
		a, oka := n.Status.Allocatable[corev1.ResourceMemory]
		if !okc || !oka {
			return
		}
		reserved := c.DeepCopy()
		reserved.Sub(a)
		if reserved.Cmp(minReserve) < 0 {
			e.report(nodeObject(n), "status.allocatable.memory", fmt.Sprintf("Windows node %s reserves %s of its %s memory (capacity minus allocatable); at least 2Gi is recommended", n.Name, live.GiB(reserved), live.GiB(c)),
				"set the kubelet's --system-reserved=memory=2Gi (or more) on the node")
		}
	}),
}

var windowsNodeContainerdOld = &rule.Rule{ID: "windows-node-containerd-old", Title: "A Windows node runs containerd older than 1.7", Severity: rule.Warning, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "status.nodeInfo.containerRuntimeVersion reports containerd before 1.7 on a Windows node.",
		Why:     "Earlier containerd releases have known CRI compatibility problems with Kubernetes 1.26 and later (the v1alpha2 CRI API was removed) and lack Windows fixes such as HostProcess support.",
		Fix:     "Upgrade containerd on the node to 1.7 or later (check with ctr.exe version).",
		Sources: []string{"https://kubernetes.io/docs/concepts/windows/intro/#container-runtime (Production best practices: use containerd 1.7+ on Windows)"},
	},
	Run: windowsNodes(func(_ *Facts, n *corev1.Node, e emitter) {
		rv := n.Status.NodeInfo.ContainerRuntimeVersion
		if !strings.HasPrefix(rv, "containerd://") {
			return
		}
		major, minor, ok := majorMinor(strings.TrimPrefix(rv, "containerd://"))
		if ok && (major < 1 || (major == 1 && minor < 7)) {
			e.report(nodeObject(n), "status.nodeInfo.containerRuntimeVersion", fmt.Sprintf("Windows node %s runs %s; containerd 1.7 or later is recommended", n.Name, rv), "upgrade containerd on the node, then restart the kubelet (Restart-Service containerd; Restart-Service kubelet)")
		}
	}),
}

// majorMinor reads "1.6.21", "v1.7.0" or "2.0.0-rc.1".
func majorMinor(v string) (major, minor int, ok bool) {
	v = strings.TrimPrefix(v, "v")
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		return 0, 0, false
	}
	return major, minor, true
}

var kubeletVersionSkew = &rule.Rule{ID: "kubelet-version-skew", Title: "A kubelet is newer than the API server or more than three minor versions older", Severity: rule.Error, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "status.nodeInfo.kubeletVersion is outside the skew Kubernetes supports against kube-apiserver: never newer, at most three minor versions older.",
		Why:     "Windows nodes are often upgraded on their own schedule; a kubelet outside the skew policy is untested against the control plane and may misbehave or be refused features.",
		Fix:     "Upgrade (or, if newer, downgrade) the node's kubelet to within three minor versions of the API server.",
		Sources: []string{"Kubernetes version skew policy (kubernetes.io/releases/version-skew-policy)", "https://kubernetes.io/docs/concepts/windows/intro/#container-runtime (Windows node component stack)"},
	},
	Run: NodeRun(func(f *Facts, e emitter) {
		for _, n := range f.Snapshot.Nodes {
			kv := n.Status.NodeInfo.KubeletVersion
			major, minor, ok := majorMinor(kv)
			if !ok || major != 1 {
				continue
			}
			var msg string
			switch d := f.Server.Minor - minor; {
			case d < 0:
				msg = fmt.Sprintf("node %s runs kubelet %s, newer than the API server (%s)", n.Name, kv, f.Snapshot.Server)
			case d > 3:
				msg = fmt.Sprintf("node %s runs kubelet %s, %d minor versions older than the API server (%s); at most 3 are supported", n.Name, kv, d, f.Snapshot.Server)
			}
			if msg != "" {
				e.report(nodeObject(n), "status.nodeInfo.kubeletVersion", msg, "")
			}
		}
	}),
}

var hybridTooFewNodes = &rule.Rule{ID: "hybrid-too-few-nodes", Title: "A hybrid cluster has fewer than two Ready schedulable nodes of an OS", Severity: rule.Warning, Category: CategoryCapacity, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "In a cluster with Windows nodes or Windows workloads, fewer than two nodes of Linux or of Windows are Ready and not cordoned.",
		Why:     "Pods are pinned to their OS: with one node of an OS, draining or losing it leaves every workload of that OS Pending.",
		Fix:     "Run at least two Ready nodes of each OS (a node pool of two or more).",
		Sources: []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (mixed-OS cluster architecture: node pools per OS)", "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (hybrid cluster setup)"},
	},
	Run: NodeRun(func(f *Facts, e emitter) {
		hybrid := false
		for _, n := range f.Snapshot.Nodes {
			hybrid = hybrid || Windows(n)
		}
		for _, w := range f.Workloads {
			hybrid = hybrid || w.Facts.OS == target.Windows
		}
		if !hybrid {
			return
		}
		for _, os := range []string{"linux", "windows"} {
			total, ready := 0, 0
			for _, n := range f.Snapshot.Nodes {
				if NodeOS(n) == os {
					total++
					if Schedulable(n) {
						ready++
					}
				}
			}
			if ready < 2 {
				e.report(&clusterObject, "", fmt.Sprintf("%d of %d %s node(s) are Ready and schedulable; a hybrid cluster needs at least 2 of each OS", ready, total, os), "")
			}
		}
	}),
}

// clusterObject is the identity of findings about the whole cluster.
var clusterObject = nodeClusterIdentity()

func podOnWrongNode(podOS, nodeOS target.OS) func(*Facts, emitter) {
	return func(f *Facts, e emitter) {
		for _, p := range f.Snapshot.Pods {
			n := f.Snapshot.Node(p.Spec.NodeName)
			if n == nil || f.PodOS[p] != podOS || NodeOS(n) != string(nodeOS) || live.Terminated(p) {
				continue
			}
			e.report(podObject(p), "spec.nodeName", fmt.Sprintf("pod %s/%s is for %s but is bound to %s node %s", p.Namespace, p.Name, podOS, nodeOS, n.Name),
				fmt.Sprintf("pin the workload with nodeSelector kubernetes.io/os: %s and delete the pod", podOS))
		}
	}
}

var linuxPodOnWindowsNode = podOnWrongNodeRule("linux-pod-on-windows-node", "A Linux pod is bound to a Windows node", target.Linux, target.Windows, rule.Doc{
	What:    "A pod that is not finished and is for Linux (by spec.os.name, its node selector or its images) is bound to a Windows node.",
	Why:     "The Windows kubelet refuses a pod whose spec.os.name is linux (PodOSNotSupported), and containerd cannot pull a Linux-only image there; the pod never runs.",
	Fix:     "Pin the workload to Linux (nodeSelector kubernetes.io/os: linux), taint the Windows nodes, and delete the pod so it is rescheduled.",
	Sources: []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (always taint Windows nodes)", "k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go (PodOSNotSupported)"},
})

var windowsPodOnLinuxNode = podOnWrongNodeRule("windows-pod-on-linux-node", "A Windows pod is bound to a Linux node", target.Windows, target.Linux, rule.Doc{
	What:    "A pod that is not finished and is for Windows (by spec.os.name, its node selector, HostProcess or its images) is bound to a Linux node.",
	Why:     "A Linux kubelet refuses a pod whose spec.os.name is windows, and a Windows image has no Linux variant to pull.",
	Fix:     "Pin the workload to Windows (nodeSelector kubernetes.io/os: windows plus the toleration of the Windows taint) and delete the pod.",
	Sources: []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (every pod should have a nodeSelector for kubernetes.io/os)", "k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go (PodOSNotSupported)"},
})

// podOnWrongNodeRule is the rule for pods of podOS bound to a node of
// nodeOS: the same check both ways round.
func podOnWrongNodeRule(id, title string, podOS, nodeOS target.OS, doc rule.Doc) *rule.Rule {
	return &rule.Rule{ID: id, Title: title, Severity: rule.Error, Category: CategoryNodes, Family: rule.FamilyAudit, Doc: doc,
		Run: NodeRun(podOnWrongNode(podOS, nodeOS))}
}

var windowsNodeNotReady = &rule.Rule{ID: "windows-node-not-ready", Title: "A Windows node is not Ready", Severity: rule.Error, Category: CategoryNodes, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "A Windows node's Ready condition is False or Unknown; the finding quotes the condition's reason and message.",
		Why:     "A NotReady Windows node takes no pods, and its running pods are evicted after the toleration of node.kubernetes.io/not-ready ends; on Windows the usual causes are a stopped kubelet or containerd service, or a CNI not ready.",
		Fix:     "On the node: Get-Service kubelet, containerd, kube-proxy; Get-EventLog -LogName Application -Source kubelet -Newest 50; restart containerd, then the kubelet.",
		Sources: []string{"https://kubernetes.io/docs/tasks/debug/debug-cluster/windows/ (Windows node diagnostics; kubelet failing to start)", "https://kubernetes.io/docs/tasks/debug/debug-cluster/windows/ (troubleshooting: kubelet and kube-proxy services)"},
	},
	Run: windowsNodes(func(_ *Facts, n *corev1.Node, e emitter) {
		switch c := Ready(n); {
		case c == nil:
			e.report(nodeObject(n), "status.conditions", fmt.Sprintf("Windows node %s reports no Ready condition", n.Name), "")
		case c.Status != corev1.ConditionTrue:
			e.report(nodeObject(n), "status.conditions[Ready]", fmt.Sprintf("Windows node %s is not Ready (Ready=%s, reason %s): %s", n.Name, c.Status, c.Reason, c.Message),
				"on the node: Get-Service kubelet, containerd; Get-EventLog -LogName Application -Source kubelet -Newest 50")
		}
	}),
}
