package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// HostProcessBuildPin: a HostProcess DaemonSet pinned to Windows builds
// it does not need, so the node agent skips the Windows nodes of every
// other build.
var HostProcessBuildPin = &rule.Rule{
	ID:       "hostprocess-build-pin",
	Title:    "HostProcess DaemonSet is pinned to Windows builds it does not need",
	Severity: rule.Warning,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports HostProcess DaemonSets whose node.kubernetes.io/windows-build pin (or a managed platform's OS label: kubernetes.azure.com/os-sku, cloud.google.com/gke-windows-os-version), in the nodeSelector, the required node affinity or the RuntimeClass, leaves out Windows nodes the DaemonSet could run on: with a cluster profile, its Windows pools of other builds; with none, the Windows Server builds the selected Kubernetes version supports as a node OS. A pin to builds that are all unsupported is left to windows-build-unsupported. An agent shipped as one DaemonSet per build (the same container images, tags aside, as a chart's list of builds makes) is judged as a whole: a build one of its DaemonSets runs on is not left out by another's pin. A single object (the webhook's) is judged alone. Deployments, Jobs and other workloads are not reported: they need some node, not every node.",
		Why:  "A HostProcess container runs as a process on the host, not on a base layer of its own: its image need not match the host's build, so one image serves every Windows Server version. A windows-build pin, which a process-isolated container needs, only keeps a HostProcess DaemonSet (a CNI, CSI, log or metrics agent, kube-proxy) off the nodes of the other builds. When Windows Server 2025 nodes join a pool of 2022 ones, or a chart's list of builds stops at ltsc2022, those nodes get no agent and nothing reports it.",
		Fix:  "Drop the windows-build pin from the HostProcess DaemonSet and keep kubernetes.io/os: windows; if the agent really needs a newer Windows (a feature missing from older builds), pin with NotIn the builds it cannot run on, so that newer builds still get it.",
		Sources: []string{
			"https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/ (HostProcess containers \"do not inherit the same compatibility requirements as Windows server containers, meaning that the version of the base images does not need to match that of the host\")",
			"https://github.com/microsoft/windows-host-process-containers-base-image (README, OS compatibility: a single HostProcess image can be used on any Windows Server version)",
			"https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (the Windows Server builds each Kubernetes release supports as a node OS)",
			"https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#running-pods-on-select-nodes (a DaemonSet with a node selector or node affinity runs pods only on the nodes that match)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if !isDaemonSet(p) || !f.HostProcess || !f.Is(target.Windows) || f.Builds == nil {
			return
		}
		pins := pinnedBuilds(p)
		if len(pins) == 0 || !anyPinSupported(p, pins) {
			return // no pin we can name, or windows-build-unsupported's
		}
		left := buildsLeftOut(p)
		if len(left) == 0 {
			return
		}
		values := make([]string, 0, len(pins))
		for _, pin := range pins {
			if !slices.Contains(values, pin.Value) {
				values = append(values, pin.Value)
			}
		}
		// An agent shipped as one DaemonSet per build (a chart's list of
		// builds) is judged as a whole: a build another HostProcess
		// DaemonSet of the same images runs on is not left out.
		agent, m, label := rule.AgentKey(p.Workload.Spec), p.Model, pins[0].Label
		p.Later(rule.Finding{
			Path: rule.Path(pins[0].Path),
			Hint: "drop the windows-build pin and keep kubernetes.io/os: windows; if the agent needs a newer Windows, exclude the older builds with NotIn instead",
		}, func(in *rule.Evidence, f *rule.Finding) bool {
			var names []string
			for _, l := range left {
				if !coveredBy(in.HostProcessBuilds[agent], l.build, m) {
					names = append(names, l.name)
				}
			}
			if len(names) == 0 {
				return false
			}
			f.Message = fmt.Sprintf("HostProcess DaemonSet pins %s %s, but a HostProcess container runs on any Windows build (its image need not match the host's): the pin only keeps it off %s, which get no pod",
				label, strings.Join(values, ", "), resourceList(names))
			return true
		})
	},
}

// unpinnedBuild is the Windows nodes of one build a DaemonSet's pin keeps
// it off, named for the message.
type unpinnedBuild struct{ name, build string }

// coveredBy reports whether one of an agent's DaemonSets (the builds each
// allows, nil for any) runs on build.
func coveredBy(sets [][]string, build string, m winsupport.Model) bool {
	for _, builds := range sets {
		if builds == nil || slices.ContainsFunc(builds, func(b string) bool { return buildNumber(m, b) == buildNumber(m, build) }) {
			return true
		}
	}
	return false
}

// anyPinSupported reports whether a pinned build is one the selected
// Kubernetes version supports as a node OS (or one the model does not
// know: a build named by a cluster's own pools).
func anyPinSupported(p *rule.Pass, pins []buildPin) bool {
	for _, pin := range pins {
		b, ok := p.Model.BuildByNumber(pin.Build)
		if !ok || p.Model.NodeSupported(b) {
			return true
		}
	}
	return false
}

// buildsLeftOut names the Windows nodes the workload's build constraints
// keep it off: the cluster profile's Windows pools of other builds, or,
// when no profile was given, the supported LTSC builds it does not allow.
func buildsLeftOut(p *rule.Pass) []unpinnedBuild {
	var out []unpinnedBuild
	if !p.Cluster.Assumed {
		for _, pool := range p.Cluster.PoolsOf("windows") {
			if pool.WindowsBuild != "" && !buildAllowed(p, pool) {
				out = append(out, unpinnedBuild{fmt.Sprintf("the nodes of Windows pool %q (%s)", pool.Name, pool.WindowsBuild), pool.WindowsBuild})
			}
		}
		return out
	}
	for _, b := range p.Model.Builds() {
		if b.Channel != winsupport.LTSC || !p.Model.NodeSupported(b) {
			continue
		}
		if !slices.ContainsFunc(p.Target.Builds, func(a string) bool { return sameBuild(p, a, b.Build) }) {
			out = append(out, unpinnedBuild{fmt.Sprintf("%s (%s) nodes", b.Name, b.Build), b.Build})
		}
	}
	return out
}
