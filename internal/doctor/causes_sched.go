package doctor

const (
	srcScheduler   = "k8s.io/kubernetes v1.36.3 pkg/scheduler/framework/plugins (tainttoleration/taint_toleration.go, nodeaffinity/node_affinity.go, noderesources/fit.go)"
	srcPredicate   = "k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go"
	srcFeaturesWin = "k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/features_windows.go and handlers.go"
	srcEvents      = "k8s.io/kubernetes v1.36.3 pkg/kubelet/events/event.go"
)

// UntoleratedTaint: the pod does not tolerate a taint of the nodes of its OS.
var UntoleratedTaint = &Cause{
	ID: "untolerated-taint", Title: "The pod does not tolerate the taint of the nodes it could run on",
	Explain: "kube-scheduler filtered out the nodes whose taints the pod does not tolerate. Windows nodes are tainted (os=windows:NoSchedule by convention) so that Linux pods stay off them; a Windows pod needs the matching toleration, and a pod without an OS pin is filtered from the Windows nodes by the taint and from the Linux nodes by nothing else.",
	Steps: []string{
		"Read the FailedScheduling message: it counts the nodes that had untolerated taints.",
		"List the taints of the nodes of the pod's OS: kubectl get nodes -l kubernetes.io/os=windows -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints.",
		"Add the toleration to the workload's pod template (key os, value windows, effect NoSchedule) together with nodeSelector kubernetes.io/os: windows, or put both in a RuntimeClass the workload names.",
	},
	Commands: []Command{
		kubectl("kubectl get nodes -l kubernetes.io/os=windows -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints"),
		kubectl("kubectl describe pod -n {ns} {pod}"),
	},
	Patterns: []Pattern{{Text: "untolerated taint", Service: "kube-scheduler", Source: srcScheduler}},
	Sources:  []string{"https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (taints and tolerations; always taint Windows nodes)", "https://kubernetes.io/docs/concepts/containers/runtime-class/#scheduling (RuntimeClass scheduling)", srcScheduler},
}

// NoNodeMatchesSelector: no node has the labels the pod requires.
var NoNodeMatchesSelector = &Cause{
	ID: "no-node-matches-selector", Title: "No node matches the pod's node selector or affinity",
	Explain: "kube-scheduler found no node whose labels satisfy the pod's nodeSelector and required node affinity. In hybrid clusters this is usually a pin to a Windows build no node runs (node.kubernetes.io/windows-build), a pin to an OS the cluster has no Ready node of, or a RuntimeClass whose scheduling.nodeSelector no node matches.",
	Steps: []string{
		"Compare the pod's nodeSelector and affinity with the labels of the nodes of its OS.",
		"Check the Windows builds the nodes run: kubectl get nodes -L kubernetes.io/os,node.kubernetes.io/windows-build.",
		"Pin the workload to a build the cluster has, or add nodes of the build it needs.",
	},
	Commands: []Command{
		kubectl("kubectl get nodes -L kubernetes.io/os,node.kubernetes.io/windows-build"),
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.nodeSelector}{\"\\n\"}{.spec.affinity.nodeAffinity}'"),
	},
	Patterns: []Pattern{{Text: "didn't match Pod's node affinity/selector", Service: "kube-scheduler", Source: srcScheduler}},
	Sources:  []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (pin pods to Windows build versions)", srcScheduler},
}

// InsufficientResources: no node of the pod's OS has room.
var InsufficientResources = &Cause{
	ID: "insufficient-resources", Title: "No node the pod may run on has room for its requests",
	Explain: "kube-scheduler found the nodes the pod may run on too full for its requests. Windows nodes carry more OS overhead than Linux ones (about 3.5 GB of memory and 1.2 CPU for the OS on a 16 GB node), so a Windows pool fills sooner than its size suggests.",
	Steps: []string{
		"Read the FailedScheduling message: which resource is short, on how many nodes.",
		"Compare requests with allocatable on the nodes of the pod's OS: kubectl describe nodes -l kubernetes.io/os=windows.",
		"Lower the requests, scale the node pool of the pod's OS, or run winkube audit to see the headroom of each Windows workload.",
	},
	Commands: []Command{
		kubectl("kubectl describe nodes -l kubernetes.io/os=windows"),
		kubectl("winkube audit -o text"),
	},
	Patterns: []Pattern{
		{Text: "Insufficient ", Service: "kube-scheduler", Source: srcScheduler},
		{Text: "Too many pods", Service: "kube-scheduler", Source: srcScheduler},
	},
	Sources: []string{"https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (resource recommendations: Windows OS overhead)", "https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (resource management)", srcScheduler},
}

// PodOSMismatch: the kubelet refused a pod for another OS.
var PodOSMismatch = &Cause{
	ID: "pod-os-mismatch", Title: "The node's kubelet refused the pod: it is for another OS",
	Explain: "The kubelet admits only pods whose spec.os.name, and whose kubernetes.io/os node selector, match its own OS. The pod was bound to a node of the other OS (it names its node, or nothing kept it off) and ended Failed with reason PodOSNotSupported or PodOSSelectorNodeLabelDoesNotMatch.",
	Steps: []string{
		"Check spec.os.name and the kubernetes.io/os selector of the pod against the node's OS.",
		"Pin the workload with nodeSelector kubernetes.io/os matching spec.os.name, and taint Windows nodes so that unpinned Linux pods stay off them.",
		"Delete the failed pod so its controller creates a new one.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.os.name} {.spec.nodeSelector} {.status.reason}: {.status.message}'"),
		kubectl("kubectl get node {node} -L kubernetes.io/os"),
		kubectl("kubectl delete pod -n {ns} {pod}"),
	},
	Patterns: []Pattern{
		{Text: "PodOSNotSupported", Service: "kubelet", Source: srcPredicate},
		{Text: "PodOSSelectorNodeLabelDoesNotMatch", Service: "kubelet", Source: srcPredicate},
		{Text: "Failed to admit pod as the OS field doesn't match node OS", Service: "kubelet", Source: srcPredicate},
		{Text: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label", Service: "kubelet", Source: srcPredicate},
	},
	Sources: []string{"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (spec.os.name)", srcPredicate},
}

// PodLevelResourcesUnsupported: pod-level resources on a Windows node.
var PodLevelResourcesUnsupported = &Cause{
	ID: "pod-level-resources-unsupported", Title: "The Windows kubelet refused pod-level resources",
	Explain: "The pod sets spec.resources (pod-level requests and limits). The Windows kubelet does not support them and refuses the pod at admission with reason PodLevelResourcesNotSupported.",
	Steps: []string{
		"Move the requests and limits from spec.resources to each container's resources.",
		"Delete the failed pod so its controller creates a new one.",
	},
	Commands: []Command{
		kubectl("kubectl get pod -n {ns} {pod} -o jsonpath='{.spec.resources}'"),
		kubectl("kubectl delete pod -n {ns} {pod}"),
	},
	Patterns: []Pattern{
		{Text: "PodLevelResourcesNotSupported", Service: "kubelet", Source: srcFeaturesWin},
		{Text: "pod-level resources are not supported on Windows", Service: "kubelet", Source: srcFeaturesWin},
	},
	Sources: []string{srcFeaturesWin},
}
