package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

var resourceRules = []*rule.Rule{
	WindowsMissingResources,
	WindowsMissingStartupProbe,
}

// WindowsMissingResources: a Windows container without CPU and memory
// requests and limits.
var WindowsMissingResources = &rule.Rule{
	ID:       "windows-missing-resources",
	Title:    "Windows container has no CPU and memory requests and limits",
	Severity: rule.Warning,
	Category: rule.Resources,
	Doc: rule.Doc{
		What: "Reports every init and regular container of a Windows workload that does not set a CPU and a memory limit and request, naming what is missing. A request left out beside its limit is not reported: the API server defaults it to the limit.",
		Why:  "Windows has no swap and no out-of-memory killer the way Linux has: processes page to disk instead, and the kubelet takes no OOM eviction action. Requests are the only protection against overprovisioning a Windows node, and limits keep memory within NodeAllocatable so the scheduler stops adding pods once a node is full.",
		Fix:  "Set resources.requests and resources.limits for cpu and memory on every container; for memory, set only the limit or make the request equal to it.",
		Sources: []string{
			"seed 003 (requests are subtracted from node available resources, so they can be used to avoid overprovisioning)",
			"seed 004 (no out-of-memory killer; use resource limits, only limits or limits equal to requests, which subtract from NodeAllocatable)",
			"seed 002 (CPU requests are advisory on Windows; memory limits are Job Object limits)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !p.Target.Is(target.Windows) {
			return
		}
		s, base := p.Workload.Spec, p.Workload.SpecPath
		for i := range s.InitContainers {
			checkContainerResources(p, &s.InitContainers[i], base.Child("initContainers").Index(i))
		}
		for i := range s.Containers {
			checkContainerResources(p, &s.Containers[i], base.Child("containers").Index(i))
		}
	},
}

func checkContainerResources(p *rule.Pass, c *corev1.Container, path *field.Path) {
	missing := missingResources(c.Resources)
	if len(missing) == 0 {
		return
	}
	p.Report(rule.Finding{
		Path:    rule.Path(path.Child("resources")),
		Message: fmt.Sprintf("container %q has no %s; Windows has no swap and no OOM killer to protect the node", c.Name, resourceList(missing)),
		Hint:    "set cpu and memory requests and limits: requests keep the node from being overprovisioned, memory limits keep it within NodeAllocatable",
	})
}

// missingResources names the requests and limits a container lacks, in
// the order requests.cpu, limits.cpu, requests.memory, limits.memory. A
// missing request with its limit set is defaulted to the limit.
func missingResources(r corev1.ResourceRequirements) []string {
	var out []string
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		_, req := r.Requests[name]
		_, lim := r.Limits[name]
		if !req && !lim {
			out = append(out, "requests."+string(name))
		}
		if !lim {
			out = append(out, "limits."+string(name))
		}
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
