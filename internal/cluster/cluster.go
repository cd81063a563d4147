package cluster

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Well-known node labels.
const (
	LabelOS           = "kubernetes.io/os"
	LabelOSBeta       = "beta.kubernetes.io/os"
	LabelArch         = "kubernetes.io/arch"
	LabelHostname     = "kubernetes.io/hostname"
	LabelWindowsBuild = "node.kubernetes.io/windows-build"
	LabelZone         = "topology.kubernetes.io/zone"
)

// Cluster is a set of node pools at a Kubernetes version.
type Cluster struct {
	Name              string `json:"name,omitempty"`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	Pools             []Pool `json:"pools"`
	// ClusterDomain is the DNS domain of the cluster's Services (the
	// kubelet's clusterDomain); DefaultClusterDomain when empty.
	ClusterDomain string `json:"clusterDomain,omitempty"`

	// Observed holds the exact nodes when the cluster was read from Node
	// objects (kubectl get nodes -o yaml); Pools are then derived from
	// them. ObservedPools maps each node name to its derived pool.
	Observed      []*corev1.Node    `json:"-"`
	ObservedPools map[string]string `json:"-"`

	// Source says where the profile came from, for every command to print:
	// "--cluster aks (built-in)", "cluster file nodes.yaml", ".winkube.yaml".
	Source string `json:"-"`
	// Assumed is set when no profile was given at all: the Windows taint
	// and builds are the reference cluster's guess, not the user's
	// cluster, so rules that depend on them report warnings that name the
	// assumption instead of errors.
	Assumed bool `json:"-"`
}

// Pool is a group of identical nodes.
type Pool struct {
	Name         string            `json:"name"`
	Count        int               `json:"count"`
	OS           string            `json:"os"`                     // linux or windows
	WindowsBuild string            `json:"windowsBuild,omitempty"` // 10.0.20348
	Arch         string            `json:"arch,omitempty"`         // amd64 by default
	CPU          resource.Quantity `json:"cpu"`
	Memory       resource.Quantity `json:"memory"`
	MaxPods      int               `json:"maxPods,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Taints       []corev1.Taint    `json:"taints,omitempty"`
	// Reserved is what the OS, kubelet and runtime keep for themselves;
	// allocatable is capacity minus Reserved. Empty means the defaults
	// for the OS (see DefaultReserved).
	Reserved corev1.ResourceList `json:"reserved,omitempty"`
	// Zones are spread round-robin over the pool's nodes as
	// topology.kubernetes.io/zone.
	Zones []string `json:"zones,omitempty"`
	// EphemeralStorage is a node's disk (100Gi when empty); Extended lists
	// extended resources of a node, e.g. nvidia.com/gpu: 1.
	EphemeralStorage resource.Quantity   `json:"ephemeralStorage,omitempty"`
	Extended         corev1.ResourceList `json:"extended,omitempty"`
	// SandboxImage is the pause image the node's runtime starts every pod
	// with (containerd's sandbox_image); DefaultSandboxImage when empty.
	SandboxImage string `json:"sandboxImage,omitempty"`
	// CNIPortMappings says whether the CNI plugin of the pool's nodes
	// implements the portMappings capability, through which a hostPort
	// is opened on the node; nil when unknown. The Windows plugins
	// Kubernetes documents (sdnbridge/win-bridge, sdnoverlay/win-overlay,
	// flannel's and Antrea's configurations, Azure CNI) declare it, while
	// Calico's Windows configuration declares only dns; winkube assumes
	// neither and reports hostPorts only for a pool whose profile says
	// false.
	CNIPortMappings *bool `json:"cniPortMappings,omitempty"`
	// CNI names the pool's CNI plugin (see KnownCNIs); empty when unknown.
	CNI string `json:"cni,omitempty"`
	// NetworkPolicy says whether the pool's nodes enforce NetworkPolicy;
	// nil takes what is known of CNI (EnforcesNetworkPolicy), and unknown
	// is never reported as a problem.
	NetworkPolicy *bool `json:"networkPolicy,omitempty"`
	// KubeProxyDSR says whether kube-proxy on the pool's nodes runs with
	// Direct Server Return (KubeProxyConfiguration winkernel.enableDSR, or
	// --enable-dsr); nil when unknown.
	KubeProxyDSR *bool `json:"kubeProxyDSR,omitempty"`
	// NetworkMode is the HNS network mode of the pool's Windows pod
	// network (l2bridge, overlay, l2tunnel, transparent, nat); empty
	// takes what the CNI implies (Pool.Mode).
	NetworkMode string `json:"networkMode,omitempty"`
}

// DefaultSandboxImage is containerd v2's default sandbox_image
// (internal/cri/config DefaultSandboxImage; kubeadm v1.36 pins
// pause:3.10.2, which clusters set explicitly).
const DefaultSandboxImage = "registry.k8s.io/pause:3.10.1"

// AnnotationSandboxImage carries a pool's sandboxImage on its nodes, for
// the simulation's kubelet phase (winkube's own; kubelets set no such
// annotation, and nodes without it use DefaultSandboxImage).
const AnnotationSandboxImage = "winkube.io/sandbox-image"

// Sandbox returns the pool's sandbox image.
func (p Pool) Sandbox() string {
	if p.SandboxImage != "" {
		return p.SandboxImage
	}
	return DefaultSandboxImage
}

// WindowsTaint is the taint the seeds recommend for every Windows node.
var WindowsTaint = corev1.Taint{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}

// Reference is the built-in hybrid cluster used when none is given: three
// Linux nodes and two Windows Server 2022 nodes tainted os=windows:NoSchedule.
func Reference() *Cluster {
	return &Cluster{
		Name: "reference",
		Pools: []Pool{
			{Name: "linux", Count: 3, OS: "linux", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110},
			{Name: "windows", Count: 2, OS: "windows", WindowsBuild: "10.0.20348", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110,
				Taints: []corev1.Taint{WindowsTaint}},
		},
	}
}

// Hybrid reports whether the cluster has both Linux and Windows nodes.
func (c *Cluster) Hybrid() bool {
	return c.Has("linux") && c.Has("windows")
}

// Has reports whether a pool of the OS exists.
func (c *Cluster) Has(os string) bool {
	for _, p := range c.Pools {
		if p.OS == os && p.Count > 0 {
			return true
		}
	}
	return false
}

// PoolsOf returns the pools of one OS.
func (c *Cluster) PoolsOf(os string) []Pool {
	var out []Pool
	for _, p := range c.Pools {
		if p.OS == os && p.Count > 0 {
			out = append(out, p)
		}
	}
	return out
}

// WindowsBuilds returns the distinct Windows builds of the cluster's pools.
func (c *Cluster) WindowsBuilds() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range c.PoolsOf("windows") {
		if p.WindowsBuild != "" && !seen[p.WindowsBuild] {
			seen[p.WindowsBuild] = true
			out = append(out, p.WindowsBuild)
		}
	}
	return out
}

// NodeLabels returns the labels a node of the pool carries, the well-known
// ones included (hostname excepted).
func (p *Pool) NodeLabels() map[string]string {
	l := map[string]string{LabelOS: p.OS, LabelArch: p.arch()}
	if p.OS == "windows" && p.WindowsBuild != "" {
		l[LabelWindowsBuild] = p.WindowsBuild
	}
	for k, v := range p.Labels {
		l[k] = v
	}
	return l
}

func (p *Pool) arch() string {
	if p.Arch == "" {
		return "amd64"
	}
	return p.Arch
}
