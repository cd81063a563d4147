package rules

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/winkube/winkube/internal/rule"
)

// ignoredWindowsAnnotations are pod annotations that once configured a
// Windows container and that no current kubelet or container runtime
// reads, with what replaces each.
var ignoredWindowsAnnotations = map[string]string{
	// dockershim read it behind the HyperVContainer feature gate;
	// deprecated in 1.20, the experimental Hyper-V support was removed in
	// 1.21. containerd's CRI takes the isolation from the RuntimeClass
	// handler instead.
	"experimental.windows.kubernetes.io/isolation-type": "set runtimeClassName to a RuntimeClass whose handler runs Hyper-V isolation (containerd's runhcs-wcow-hypervisor), with a scheduling nodeSelector for the nodes that have that handler",
}

// IgnoredAnnotationMsg is windows-ignored-annotation's message: the key
// and its value.
const IgnoredAnnotationMsg = "annotation %s: %s is not read by the kubelet or containerd (experimental Hyper-V support was removed in Kubernetes 1.21); the pod runs process-isolated"

// IgnoredWindowsAnnotationKeys are the annotations windows-ignored-annotation
// reports, sorted (the exported policies read them).
func IgnoredWindowsAnnotationKeys() []string {
	keys := slices.Sorted(maps.Keys(ignoredWindowsAnnotations))
	return keys
}

// WindowsIgnoredAnnotation: Windows annotations nothing reads any more.
var WindowsIgnoredAnnotation = &rule.Rule{
	ID:       "windows-ignored-annotation",
	Title:    "Windows annotation that no current kubelet or runtime reads",
	Severity: rule.Warning,
	Category: rule.Images,
	Doc: rule.Doc{
		What: "Reports pod and pod template annotations that configured Windows containers under dockershim and are read by nothing today: experimental.windows.kubernetes.io/isolation-type (hyperv). The legacy alpha gMSA annotations are gmsa-missing-credential-spec-name's.",
		Why:  "The annotation asked dockershim, with the kubelet's HyperVContainer feature gate, for a Hyper-V isolated container. It was deprecated in Kubernetes 1.20 and the experimental Hyper-V support was removed in 1.21; containerd's CRI plugin never read the annotation: it takes the isolation from the RuntimeClass handler. The pod runs, but process-isolated, so an image of an older Windows build than the host's fails to start and the isolation the author meant is not there.",
		Fix:  "Remove the annotation and set runtimeClassName to a RuntimeClass whose handler is configured for Hyper-V isolation in containerd (runhcs-wcow-hypervisor). Upstream Kubernetes does not support Hyper-V isolation (see hyperv-runtimeclass), so test it on your nodes.",
		Sources: []string{
			"kubernetes.io/docs/reference/labels-annotations-taints/#experimental-windows-kubernetes-io-isolation-type (deprecated in 1.20; experimental Hyper-V support removed in 1.21)",
			"kubernetes.io/docs/concepts/containers/runtime-class/ (the handler selects the runtime configuration)",
			"containerd/containerd v2.0.0 docs/cri/config.md (runtime handlers, runhcs-wcow-hypervisor)",
		},
	},
	Workload: func(p *rule.Pass) {
		ann := p.Workload.Template.Annotations
		keys := make([]string, 0, len(ann))
		for k := range ann {
			if _, ok := ignoredWindowsAnnotations[k]; ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		meta := strings.TrimSuffix(rule.Path(p.Workload.SpecPath), "spec") + "metadata"
		for _, k := range keys {
			p.Report(rule.Finding{Path: meta + ".annotations[" + k + "]",
				Message: fmt.Sprintf(IgnoredAnnotationMsg, k, ann[k]),
				Hint:    ignoredWindowsAnnotations[k]})
		}
	},
}
