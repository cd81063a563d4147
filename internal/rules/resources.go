package rules

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

// MissingResourcesMsg is windows-missing-resources' message: "container"
// or "containers", up to three names, "has" or "have". The exported
// admission policy builds it from the same template.
const MissingResourcesMsg = "%s %s %s no memory limit or no cpu/memory requests; a Windows node has no OOM killer to protect it"

var resourceRules = []*rule.Rule{
	WindowsMissingResources,
	WindowsMissingStartupProbe,
	ImplausibleQuantity,
}

// WindowsMissingResources: a Windows container without CPU and memory
// requests and limits.
var WindowsMissingResources = &rule.Rule{
	ID:       "windows-missing-resources",
	Title:    "Windows container has no CPU and memory requests and limits",
	Severity: rule.Warning,
	Category: rule.Resources,
	Doc: rule.Doc{
		What: "Reports, once per Windows workload, the regular containers that lack a memory limit or a CPU or memory request, naming each container and what it lacks (in the hint and JSON). A request left out beside its limit is not reported: the API server defaults it to the limit. A missing CPU limit is not reported: CPU is compressible and does not endanger the node the way unbounded memory does. Init containers are not reported: they run one at a time before the regular containers and exit, so they are not a lasting capacity risk; neither are pause containers (registry.k8s.io/pause and its mirrors), which only sleep. A DaemonSet container that sets its CPU and memory requests but no memory limit is not reported: node agents (CNI, CSI, log and metrics agents) leave the limit out on purpose so that a busy node does not starve them, and their requests already count against the node. Helm test hooks (helm.sh/hook: test) are not reported: they run once, under helm test.",
		Why:  "Windows has no swap and no out-of-memory killer the way Linux has: processes page to disk instead, and the kubelet takes no OOM eviction action. Requests are the only protection against overprovisioning a Windows node, and limits keep memory within NodeAllocatable so the scheduler stops adding pods once a node is full.",
		Fix:  "Set resources.requests and resources.limits for cpu and memory on every container; for memory, set only the limit or make the request equal to it.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (requests are subtracted from node available resources, so they can be used to avoid overprovisioning)",
			"https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#memory-management (no out-of-memory killer; use resource limits, only limits or limits equal to requests, which subtract from NodeAllocatable)",
			"https://kubernetes.io/docs/concepts/configuration/windows-resource-management/#resource-reservation (CPU requests are advisory on Windows; memory limits are Job Object limits)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !p.Target.Is(target.Windows) || helmTestHook(p) {
			return
		}
		s, base := p.Workload.Spec, p.Workload.SpecPath
		var names, parts []string
		first := -1
		for i := range s.Containers {
			missing := missingResources(s.Containers[i].Resources)
			if isDaemonSet(p) && slices.Equal(missing, []string{"limits.memory"}) {
				// A node agent with requests is accounted for by the
				// scheduler; its memory limit is left out on purpose, so
				// the agent is not starved on a busy node.
				continue
			}
			if len(missing) == 0 || p.Model.PauseImage(s.Containers[i].Image) {
				continue
			}
			if first < 0 {
				first = i
			}
			names = append(names, fmt.Sprintf("%q", s.Containers[i].Name))
			parts = append(parts, fmt.Sprintf("%s: %s", s.Containers[i].Name, resourceList(missing)))
		}
		if first < 0 {
			return
		}
		p.Report(rule.Finding{
			Path: rule.Path(base.Child("containers").Index(first).Child("resources")),
			Message: fmt.Sprintf(MissingResourcesMsg,
				plural(len(names), "container", "containers"), resourceList(firstNames(names, 3)), plural(len(names), "has", "have")),
			Hint: "missing: " + strings.Join(parts, "; ") + ". Requests keep the scheduler from overcommitting the node; a memory limit is the only cap on a Windows container's memory",
		})
	},
}

// helmTestHook reports an object Helm runs only under `helm test`
// (annotation helm.sh/hook: test, or the Helm 2 test-success and
// test-failure): a one-shot check, not a lasting load on the node.
func helmTestHook(p *rule.Pass) bool {
	m, ok := p.Object.Typed.(metav1.Object)
	if !ok {
		return false
	}
	for _, h := range strings.Split(m.GetAnnotations()["helm.sh/hook"], ",") {
		switch strings.TrimSpace(h) {
		case "test", "test-success", "test-failure":
			return true
		}
	}
	return false
}

// missingResources names the requests and limits a container lacks, in
// the order requests.cpu, requests.memory, limits.memory. A missing
// request with its limit set is defaulted to the limit. A missing CPU
// limit is not reported: CPU is compressible, so an unlimited container
// is throttled by the others' shares instead of endangering the node.
func missingResources(r corev1.ResourceRequirements) []string {
	var out []string
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		_, req := r.Requests[name]
		_, lim := r.Limits[name]
		if !req && !lim {
			out = append(out, "requests."+string(name))
		}
	}
	if _, lim := r.Limits[corev1.ResourceMemory]; !lim {
		out = append(out, "limits.memory")
	}
	return out
}

// resourceList writes "a", "a and b", "a, b and c".
func resourceList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// firstNames keeps a message short: the first n names, then "N more".
func firstNames(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(append([]string(nil), names[:n]...), fmt.Sprintf("%d more", len(names)-n))
}
