package cloudprofile

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
)

// Check IDs: what in a node-pool definition strands pods on a hybrid
// cluster. Each is reported once per pool (or cluster) with its line.
const (
	// CheckWindowsUntainted: a Windows pool without a NoSchedule or
	// NoExecute taint takes every Linux pod that does not pin
	// kubernetes.io/os=linux; the pod then fails to pull its image
	// ("no matching manifest for windows/amd64"). The Kubernetes guide
	// recommends tainting Windows nodes
	// (kubernetes.io/docs/concepts/windows/user-guide/, taints and
	// tolerations).
	CheckWindowsUntainted = "windows-pool-untainted"
	// CheckRetiredOSSKU: AKS retired Windows Server 2019 on 1 March 2026
	// and creates no Windows2019 node pools on Kubernetes 1.33 and later
	// (AKS release notes 2026-05-29, github.com/Azure/AKS/releases/tag/2026-05-29;
	// learn.microsoft.com/azure/aks/upgrade-windows-os).
	CheckRetiredOSSKU = "retired-windows-os-sku"
	// CheckLinuxAllTainted: every Linux pool carries a NoSchedule or
	// NoExecute taint other than CriticalAddonsOnly, which cluster add-ons
	// (CoreDNS, metrics-server, konnectivity) tolerate; add-ons that
	// tolerate only it stay Pending, and a Linux taint is no way to keep
	// Linux pods off Windows nodes (kubernetes.io/docs/concepts/windows/user-guide/).
	CheckLinuxAllTainted = "linux-pools-all-tainted"
	// CheckWindowsNetworkPlugin: AKS Windows node pools need Azure CNI;
	// kubenet clusters cannot add them (learn.microsoft.com/azure/aks/windows-faq).
	CheckWindowsNetworkPlugin = "windows-network-plugin"
	// CheckWindowsIPAlias: GKE Windows Server node pools need a VPC-native
	// cluster (alias IPs); routes-based clusters cannot add them
	// (cloud.google.com/kubernetes-engine/docs/how-to/creating-a-cluster-windows).
	CheckWindowsIPAlias = "windows-ip-alias"
)

// check reports the problems of the pools read.
func (r *reader) check() {
	var linux, tainted []*pool
	hasWindows := false
	for _, p := range r.pools {
		if p.OS == "windows" {
			hasWindows = true
			if !cluster.Repels(p.Taints) {
				r.problem(p.line, CheckWindowsUntainted, "Windows pool %s has no NoSchedule taint: Linux pods that do not select kubernetes.io/os=linux can land on it and fail to pull their images; add a taint such as os=windows:NoSchedule and tolerate it in Windows workloads", p.Name)
			}
			continue
		}
		linux = append(linux, p)
		if cluster.Repels(p.Taints) && !criticalOnly(p.Taints) {
			tainted = append(tainted, p)
		}
	}
	if len(linux) > 0 && len(tainted) == len(linux) {
		p := linux[0]
		r.problem(p.line, CheckLinuxAllTainted, "every Linux pool is tainted (%s on %s): cluster add-ons such as CoreDNS do not tolerate it and stay Pending; leave one Linux pool untainted (or tainted CriticalAddonsOnly=true:NoSchedule) and keep Linux pods off Windows nodes with a Windows taint", taintText(p.Taints), p.Name)
	}
	if !hasWindows {
		return
	}
	if r.networkPlugin == "kubenet" {
		r.problem(r.networkPluginLine, CheckWindowsNetworkPlugin, "network plugin kubenet: AKS Windows node pools need Azure CNI (--network-plugin azure)")
	}
	if r.ipAlias != nil && !*r.ipAlias {
		r.problem(r.ipAliasLine, CheckWindowsIPAlias, "the cluster is routes-based: GKE Windows Server node pools need a VPC-native cluster (--enable-ip-alias)")
	}
}

// Retired reports the pools whose OS SKU the Kubernetes minor version
// no longer runs.
func (pr *Profile) Retired(minor int) []Note {
	if minor < 33 {
		return nil
	}
	var out []Note
	for _, p := range pr.pools {
		if p.sku2019 {
			out = append(out, Note{File: pr.file, Line: p.line, Check: CheckRetiredOSSKU,
				Msg: "pool " + p.Name + ": OS SKU Windows2019 is retired on AKS and not offered from Kubernetes 1.33; use --os-sku Windows2022 (or Windows2025)"})
		}
	}
	return out
}

func criticalOnly(ts []corev1.Taint) bool {
	for _, t := range ts {
		if (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) && t.Key != "CriticalAddonsOnly" {
			return false
		}
	}
	return true
}

func taintText(ts []corev1.Taint) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.ToString())
	}
	return strings.Join(s, ", ")
}
