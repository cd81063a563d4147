package cluster

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Profile is a built-in named cluster: a managed platform's defaults for
// Windows node pools, each value with its source.
type Profile struct {
	Name  string
	Title string
	// Taint is the taint the platform puts on Windows nodes by default;
	// nil when it puts none.
	Taint       *corev1.Taint
	TaintSource string
	// Builds are the Windows Server builds the platform offers for node
	// pools, newest last; the profile's Windows pool runs the first.
	Builds       []string
	BuildsSource string
	// CNI is the CNI plugin of the platform's Windows pools, "" when it is
	// the user's choice; NetworkPolicy then follows from KnownCNIs.
	CNI       string
	CNISource string
	// Versions says which Kubernetes versions the platform offers; the
	// profile does not fix one: pass --kubernetes-version.
	Versions string
}

var gkeTaint = corev1.Taint{Key: "node.kubernetes.io/os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}
var openshiftTaint = corev1.Taint{Key: "os", Value: "Windows", Effect: corev1.TaintEffectNoSchedule}

var profiles = []Profile{
	{Name: "reference", Title: "winkube's reference hybrid cluster",
		Taint: &WindowsTaint, TaintSource: "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host and the Kubernetes Windows guide (--register-with-taints='os=windows:NoSchedule'), the convention most Windows manifests tolerate",
		Builds: []string{"10.0.20348"}, BuildsSource: "Windows Server 2022, the LTSC build every supported Kubernetes release runs",
		CNISource: "the user's choice (kubernetes.io/docs/concepts/services-networking/windows-networking, Network modes), so NetworkPolicy enforcement is unknown",
		Versions:  "any supported release"},
	{Name: "aks", Title: "Azure Kubernetes Service",
		TaintSource: "AKS adds no taint to Windows node pools unless --node-taints is given (learn.microsoft.com/azure/aks/use-node-taints; the AKS Windows quickstarts schedule with a nodeSelector only)",
		Builds:      []string{"10.0.20348", "10.0.26100"}, BuildsSource: "AKS Windows Server 2022 and 2025 node images (learn.microsoft.com/azure/aks/windows-faq)",
		CNI: "azure", CNISource: "AKS Windows node pools need Azure CNI (learn.microsoft.com/azure/aks/windows-faq); NetworkPolicy for Windows pods only with Azure Network Policy Manager (learn.microsoft.com/azure/aks/use-network-policies), so unknown",
		Versions: "the AKS supported-versions calendar (learn.microsoft.com/azure/aks/supported-kubernetes-versions)"},
	{Name: "eks", Title: "Amazon Elastic Kubernetes Service",
		TaintSource: "EKS Windows AMIs register without a taint; the EKS best-practices guide recommends adding os=windows:NoSchedule yourself (aws.github.io/aws-eks-best-practices/windows/docs/scheduling)",
		Builds:      []string{"10.0.20348"}, BuildsSource: "EKS-optimized Windows Server 2022 AMIs (docs.aws.amazon.com/eks/latest/userguide/eks-optimized-windows-ami.html)",
		Versions: "the EKS Kubernetes version calendar (docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html)"},
	{Name: "gke", Title: "Google Kubernetes Engine (Standard)",
		Taint: &gkeTaint, TaintSource: "GKE taints Windows Server nodes node.kubernetes.io/os=windows:NoSchedule (cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows); GoogleCloudPlatform/kubernetes-engine-samples windows/ tolerate it",
		Builds: []string{"10.0.20348"}, BuildsSource: "GKE WINDOWS_LTSC_CONTAINERD node images, Windows Server 2022 (cloud.google.com/kubernetes-engine/docs/concepts/windows-server-gke)",
		Versions: "the GKE release channels (cloud.google.com/kubernetes-engine/docs/release-schedule)"},
	{Name: "openshift", Title: "OpenShift with the Windows Machine Config Operator",
		Taint: &openshiftTaint, TaintSource: "WMCO taints Windows nodes os=Windows:NoSchedule (docs.openshift.com windows_containers/scheduling-windows-workloads: the RuntimeClass example tolerates key os, value Windows)",
		Builds: []string{"10.0.20348"}, BuildsSource: "WMCO supports Windows Server 2022 LTSC (docs.openshift.com windows_containers/understanding-windows-container-workloads)",
		Versions: "the OpenShift release's Kubernetes version"},
}

// KnownWindowsTaints are the taint conventions of the built-in profiles:
// a toleration of any of them shows which convention a manifest expects.
func KnownWindowsTaints() []corev1.Taint {
	return []corev1.Taint{WindowsTaint, gkeTaint, openshiftTaint}
}

// WindowsTaintNamed reads a toleration as the Windows taint of the
// cluster its author wrote for, when it names one: an OS key (os, or a
// prefixed name ending in /os, in any letter case) with the value windows
// in any letter case, matched by Equal, for NoSchedule (also when it names
// no effect) or NoExecute. Clusters taint their Windows nodes under names
// of their own (K2s: OS=Windows), and a manifest tolerating one shows
// which its cluster uses. The known conventions (KnownWindowsTaints) are
// read this way too.
func WindowsTaintNamed(tol corev1.Toleration) (corev1.Taint, bool) {
	key := strings.ToLower(tol.Key)
	if key != "os" && !strings.HasSuffix(key, "/os") {
		return corev1.Taint{}, false
	}
	if tol.Operator != "" && tol.Operator != corev1.TolerationOpEqual || !strings.EqualFold(tol.Value, "windows") {
		return corev1.Taint{}, false
	}
	effect := tol.Effect
	switch effect {
	case "":
		effect = corev1.TaintEffectNoSchedule
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute:
	default:
		return corev1.Taint{}, false
	}
	return corev1.Taint{Key: tol.Key, Value: tol.Value, Effect: effect}, true
}

// Profiles returns the built-in profiles.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }

// ProfileNames lists the built-in profile names, sorted.
func ProfileNames() []string {
	var out []string
	for _, p := range profiles {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// Named returns the built-in cluster of a profile: three Linux nodes and
// two Windows nodes of the profile's first build, tainted as the platform
// taints them.
func Named(name string) (*Cluster, error) {
	for _, p := range profiles {
		if p.Name != name {
			continue
		}
		win := Pool{Name: "windows", Count: 2, OS: "windows", WindowsBuild: p.Builds[0], CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110, CNI: p.CNI}
		if p.Taint != nil {
			win.Taints = []corev1.Taint{*p.Taint}
		}
		return &Cluster{Name: p.Name, Source: "--cluster " + p.Name + " (built-in)", Pools: []Pool{
			{Name: "linux", Count: 3, OS: "linux", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110},
			win,
		}}, nil
	}
	return nil, fmt.Errorf("no built-in cluster profile %q (built-in: %s; or give a cluster file)", name, strings.Join(ProfileNames(), ", "))
}

// Assumed is the reference cluster used when no profile is given at all:
// its taint and build are winkube's guess, and rules say so.
func Assumed() *Cluster {
	c := Reference()
	c.Assumed = true
	c.Source = "built-in reference, assumed: no --cluster, config or cluster file (Windows nodes assumed tainted os=windows:NoSchedule, Windows Server 2022)"
	return c
}

// Describe is the line every command prints about the cluster it checked
// against.
func (c *Cluster) Describe() string {
	src := c.Source
	if src == "" {
		src = "given"
	}
	name := c.Name
	if name == "" {
		name = "unnamed"
	}
	return fmt.Sprintf("cluster profile %q (%s)", name, src)
}
