package nodeconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"k8s.io/apimachinery/pkg/api/resource"
)

const (
	srcKubeletWindows = "kubernetes/kubernetes v1.36.3 pkg/kubelet/apis/config/validation/validation_windows.go (validateKubeletOSConfiguration)"
	srcKubeletDefault = "kubernetes/kubernetes v1.36.3 pkg/kubelet/apis/config/v1beta1/defaults.go"
	// windowsOptionMessage is the kubelet's format for an option Windows ignores.
	windowsOptionMessage = "ignored configuration option: %v (%v) %v is not supported on Windows"
)

var kubeletCgroupsPerQOS = &rule.Rule{
	ID: "kubelet-cgroups-per-qos", Title: "cgroupsPerQOS is ignored on Windows", Severity: rule.Warning, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration that leaves `cgroupsPerQOS` unset (it defaults to true) or sets it to true.",
		Why:     "Windows has no cgroups. The Windows kubelet logs `ignored configuration option: CgroupsPerQOS (--cgroups-per-qos) true is not supported on Windows` at every start, which hides real warnings, and the option suggests QoS isolation the node does not give.",
		Fix:     "Set `cgroupsPerQOS: false` (and `enforceNodeAllocatable: [none]`, which Linux validation then requires).",
		Sources: []string{srcKubeletWindows, srcKubeletDefault + " (cgroupsPerQOS defaults to true)"},
	},
	Run: Run(runCgroupsPerQOS),
}

func runCgroupsPerQOS(p *Pass) {
	for _, f := range p.Of(Kubelet) {
		if v := f.Kubelet.CgroupsPerQOS; v == nil || *v {
			hint := "set cgroupsPerQOS: false"
			if v == nil {
				hint = "it is unset and defaults to true; " + hint
			}
			p.Report(f, "cgroupsPerQOS", hint, fmt.Sprintf(windowsOptionMessage, "CgroupsPerQOS", "--cgroups-per-qos", true))
		}
	}
}

var kubeletEnforceNodeAllocatable = &rule.Rule{
	ID: "kubelet-enforce-node-allocatable", Title: "enforceNodeAllocatable other than none is ignored on Windows", Severity: rule.Warning, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration whose `enforceNodeAllocatable` holds anything but `none`, including the default `[pods]` when it is unset.",
		Why:     "Node allocatable is enforced with cgroups, which Windows lacks. The Windows kubelet logs `ignored configuration option: EnforceNodeAllocatable (--enforce-node-allocatable) [pods] is not supported on Windows`; the reserves still shape the node's allocatable, but nothing stops pods from using more.",
		Fix:     "Set `enforceNodeAllocatable: [none]` and size `systemReserved`/`kubeReserved` so the scheduler leaves room for the OS.",
		Sources: []string{srcKubeletWindows, srcKubeletDefault + " (enforceNodeAllocatable defaults to [pods])"},
	},
	Run: Run(runEnforceNodeAllocatable),
}

func runEnforceNodeAllocatable(p *Pass) {
	for _, f := range p.Of(Kubelet) {
		v := f.Kubelet.EnforceNodeAllocatable
		hint := "set enforceNodeAllocatable: [none]"
		if v == nil {
			v, hint = []string{"pods"}, "it is unset and defaults to [pods]; "+hint
		}
		if slices.ContainsFunc(v, func(s string) bool { return s != "none" }) {
			p.Report(f, "enforceNodeAllocatable", hint, fmt.Sprintf(windowsOptionMessage, "EnforceNodeAllocatable", "--enforce-node-allocatable", v))
		}
	}
}

var kubeletLinuxOnlyOption = &rule.Rule{
	ID: "kubelet-windows-invalid-option", Title: "the Windows kubelet refuses to start with singleProcessOOMKill or userNamespaces", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration that sets `singleProcessOOMKill` or `userNamespaces`.",
		Why:     "Both are Linux kernel features. The Windows kubelet's configuration validation fails with `invalid configuration: singleProcessOOMKill is not supported on Windows` or `invalid configuration: userNamespaces is not supported on Windows` and the kubelet exits, so the node never registers.",
		Fix:     "Remove the field from the Windows node's KubeletConfiguration (keep it in the Linux nodes' one).",
		Sources: []string{srcKubeletWindows},
	},
	Run: Run(runLinuxOnlyOption),
}

func runLinuxOnlyOption(p *Pass) {
	for _, f := range p.Of(Kubelet) {
		if f.Kubelet.SingleProcessOOMKill != nil {
			p.Report(f, "singleProcessOOMKill", "remove singleProcessOOMKill", "invalid configuration: singleProcessOOMKill is not supported on Windows")
		}
		if f.Kubelet.UserNamespaces != nil {
			p.Report(f, "userNamespaces", "remove userNamespaces", "invalid configuration: userNamespaces is not supported on Windows")
		}
	}
}

// ContainerdPipe is containerd's CRI endpoint on Windows.
const ContainerdPipe = "npipe:////./pipe/containerd-containerd"

var kubeletRuntimeEndpoint = &rule.Rule{
	ID: "kubelet-runtime-endpoint", Title: "the container runtime endpoint is a Unix socket", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration whose `containerRuntimeEndpoint` or `imageServiceEndpoint` is a `unix://` socket, or that leaves `containerRuntimeEndpoint` unset (its default, `unix:///run/containerd/containerd.sock`, is the same on every OS).",
		Why:     "The Windows kubelet reaches containerd over a named pipe. With a Unix socket it cannot talk to the runtime and the node never becomes Ready.",
		Fix:     "Set `containerRuntimeEndpoint: \"npipe:////./pipe/containerd-containerd\"`. If a `--container-runtime-endpoint` flag sets it instead (kubeadm's kubeadm-flags.env), this finding on an unset field is expected: set the field so the file says what the node runs.",
		Sources: []string{srcKubeletDefault, "kubernetes/kubernetes v1.36.3 cmd/kubelet/app/options/options.go (--container-runtime-endpoint: Unix Domain Sockets are supported on Linux, while npipe and tcp endpoints are supported on Windows)", "https://kubernetes.io/docs/concepts/windows/intro/#container-runtime (npipe:////./pipe/containerd-containerd)"},
	},
	Run: Run(runRuntimeEndpoint),
}

func runRuntimeEndpoint(p *Pass) {
	for _, f := range p.Of(Kubelet) {
		kc := f.Kubelet
		if kc.ContainerRuntimeEndpoint == "" {
			p.Report(f, "containerRuntimeEndpoint", "set containerRuntimeEndpoint: "+ContainerdPipe,
				"containerRuntimeEndpoint is unset and defaults to unix:///run/containerd/containerd.sock, which does not exist on Windows")
		}
		for path, v := range map[string]string{"containerRuntimeEndpoint": kc.ContainerRuntimeEndpoint, "imageServiceEndpoint": kc.ImageServiceEndpoint} {
			if strings.HasPrefix(v, "unix://") {
				p.Report(f, path, "use "+ContainerdPipe,
					fmt.Sprintf("%s %q is a Unix socket: the Windows kubelet supports npipe and tcp endpoints", path, v))
			}
		}
	}
}

// MinMemoryReserve is the memory Windows nodes should hold back for the OS.
var MinMemoryReserve = resource.MustParse("2Gi")

var kubeletReserves = &rule.Rule{
	ID: "kubelet-memory-reserve", Title: "less than 2Gi of memory reserved for the OS", Severity: rule.Warning, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration whose `systemReserved` and `kubeReserved` memory together are under 2Gi.",
		Why:     "Windows cannot enforce allocatable (no cgroups), so the reserves are the only thing keeping the scheduler from filling the node. The OS, kubelet, containerd and kube-proxy need about 2Gi; with less, pods push the node into paging and it goes NotReady.",
		Fix:     "Reserve at least 2Gi of memory, e.g. `systemReserved: {memory: 2Gi}`.",
		Sources: []string{"kubernetes.io/docs/concepts/configuration/windows-resource-management (reserve at least 2GiB of memory)", "https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (recommend 2 Gi minimum for memory)"},
	},
	Run: Run(runReserves),
}

func runReserves(p *Pass) {
	for _, f := range p.Of(Kubelet) {
		total := resource.Quantity{}
		path := "systemReserved"
		for key, m := range map[string]map[string]string{"systemReserved": f.Kubelet.SystemReserved, "kubeReserved": f.Kubelet.KubeReserved} {
			if v, ok := m["memory"]; ok {
				q, err := resource.ParseQuantity(v)
				if err != nil {
					p.Reportf(f, key+"[memory]", "%s.memory %q is not a quantity: %v", key, v, err)
					continue
				}
				total.Add(q)
				path = key + "[memory]"
			}
		}
		if total.Cmp(MinMemoryReserve) < 0 {
			p.Report(f, path, "reserve at least 2Gi, e.g. systemReserved: {memory: 2Gi}",
				fmt.Sprintf("systemReserved and kubeReserved reserve %s of memory; a Windows node needs at least 2Gi for the OS and node services", total.String()))
		}
	}
}

var kubeletEvictionHard = &rule.Rule{
	ID: "kubelet-eviction-hard", Title: "no hard eviction threshold for memory", Severity: rule.Warning, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration with no `evictionHard` `memory.available` threshold.",
		Why:     "Windows has no OOM killer: a node out of memory pages to disk and stops answering instead of killing a container. The kubelet's hard eviction threshold is what evicts pods before that happens; relying on the built-in 100Mi default leaves too little headroom on Windows.",
		Fix:     "Set `evictionHard: {memory.available: 500Mi}` (or more) explicitly.",
		Sources: []string{"kubernetes.io/docs/concepts/configuration/windows-resource-management (memory overprovisioning: Windows does not have an out-of-memory process killer)", srcKubeletDefault + " (DefaultEvictionHard)"},
	},
	Run: Run(runEvictionHard),
}

func runEvictionHard(p *Pass) {
	for _, f := range p.Of(Kubelet) {
		if _, ok := f.Kubelet.EvictionHard["memory.available"]; !ok {
			p.Report(f, "evictionHard", "set evictionHard: {memory.available: 500Mi}", "evictionHard sets no memory.available threshold: Windows has no OOM killer, so the node pages instead of evicting pods")
		}
	}
}

var kubeletResourceManagers = &rule.Rule{
	ID: "kubelet-resource-managers", Title: "CPU, memory and topology manager policies are ignored on Windows", Severity: rule.Warning, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration that sets `cpuManagerPolicy: static`, `memoryManagerPolicy: Static` or a `topologyManagerPolicy` other than `none` without enabling the `WindowsCPUAndMemoryAffinity` feature gate.",
		Why:     "The Windows container manager creates the CPU, memory and topology managers only when `WindowsCPUAndMemoryAffinity` (alpha, off by default in 1.36) is on; otherwise the policies are silently ignored and pods get no exclusive CPUs.",
		Fix:     "Remove the policies, or enable the alpha gate `WindowsCPUAndMemoryAffinity: true` knowingly.",
		Sources: []string{"kubernetes/kubernetes v1.36.3 pkg/kubelet/cm/container_manager_windows.go", "kubernetes/kubernetes v1.36.3 pkg/features/kube_features.go (WindowsCPUAndMemoryAffinity: alpha since 1.32, default false)"},
	},
	Run: Run(runResourceManagers),
}

func runResourceManagers(p *Pass) {
	for _, f := range p.Of(Kubelet) {
		kc := f.Kubelet
		if kc.FeatureGates["WindowsCPUAndMemoryAffinity"] {
			continue
		}
		for path, v := range map[string]string{"cpuManagerPolicy": kc.CPUManagerPolicy, "memoryManagerPolicy": kc.MemoryManagerPolicy, "topologyManagerPolicy": kc.TopologyManagerPolicy} {
			if v != "" && !strings.EqualFold(v, "none") {
				p.Report(f, path, "remove it, or enable the WindowsCPUAndMemoryAffinity feature gate",
					fmt.Sprintf("%s %q is ignored on Windows unless the WindowsCPUAndMemoryAffinity feature gate is enabled", path, v))
			}
		}
	}
}

var lockedFeatureGate = &rule.Rule{
	ID: "node-locked-feature-gate", Title: "WinDSR or WinOverlay set to false", Severity: rule.Error, Category: rule.NodeConfig, Family: rule.FamilyNodeConfig,
	Doc: rule.Doc{
		What:    "A KubeletConfiguration or KubeProxyConfiguration whose `featureGates` set `WinDSR` or `WinOverlay` to false.",
		Why:     "Both gates are GA and locked to true since 1.34. Setting one to false fails the component's start with `cannot set feature gate WinDSR to false, feature is locked to true`.",
		Fix:     "Remove the gate from `featureGates`; to turn DSR off, set `winkernel.enableDSR: false` instead.",
		Sources: []string{"kubernetes/kubernetes v1.36.3 pkg/features/kube_features.go (WinDSR, WinOverlay: GA, LockToDefault since 1.34)", "kubernetes/component-base v0.36.3 featuregate/feature_gate.go (cannot set feature gate %v to %v, feature is locked to %v)"},
	},
	Run: Run(runLockedFeatureGate),
}

// lockedGates are the Windows gates locked to true at the pinned release.
var lockedGates = []string{"WinDSR", "WinOverlay"}

func runLockedFeatureGate(p *Pass) {
	for _, f := range p.Files {
		var gates map[string]bool
		switch f.Kind {
		case Kubelet:
			gates = f.Kubelet.FeatureGates
		case KubeProxy:
			gates = f.KubeProxy.FeatureGates
		}
		for _, g := range lockedGates {
			if v, ok := gates[g]; ok && !v {
				p.Report(f, "featureGates."+g, "remove "+g+" from featureGates",
					fmt.Sprintf("cannot set feature gate %v to %v, feature is locked to %v", g, false, true))
			}
		}
	}
}
