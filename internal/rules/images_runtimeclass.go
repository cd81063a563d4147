package rules

import (
	"fmt"
	"strings"

	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
)

// HyperVRuntimeClass: containerd can run Hyper-V isolated containers, but
// Kubernetes does not support them.
var HyperVRuntimeClass = &rule.Rule{
	ID:       "hyperv-runtimeclass",
	Title:    "RuntimeClass selects Hyper-V isolation",
	Severity: rule.Info,
	Category: rule.Images,
	Kinds:    []string{"RuntimeClass"},
	Doc: rule.Doc{
		What: "Reports RuntimeClasses whose handler selects Hyper-V isolation in containerd (runhcs-wcow-hypervisor and other handlers naming the hypervisor).",
		Why:  "containerd implements Hyper-V isolation, and with it images of older Windows builds run on newer hosts; but upstream Kubernetes does not support Windows containers with Hyper-V isolation, so its behaviour (resource accounting, networking, the build rules winkube applies) is outside what Kubernetes tests and documents.",
		Fix:  "Prefer process isolation with images matching the node's build. Keep the Hyper-V RuntimeClass only where you need it and the node has the Hyper-V role; winkube then reports older images on newer hosts as info, not errors.",
		Sources: []string{
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/hyperv-container (Kubernetes does not support Windows containers with Hyper-V isolation)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/hyperv-container (runhcs-wcow-hypervisor; Hyper-V runs older images)",
		},
	},
	Object: onRuntimeClass(func(p *rule.Pass, rc *nodev1.RuntimeClass) {
		if !p.Model.HyperVHandler(rc.Handler) {
			return
		}
		p.Report(rule.Finding{Path: "handler",
			Message: fmt.Sprintf("handler %q selects Hyper-V isolation, which containerd implements but upstream Kubernetes does not support; pods of RuntimeClass %q can run images of older Windows builds on newer hosts", rc.Handler, rc.Name)})
	}),
}

// onRuntimeClass is the Object run of a rule over RuntimeClass objects
// (its Kinds).
func onRuntimeClass(check func(p *rule.Pass, rc *nodev1.RuntimeClass)) func(*rule.Pass) {
	return func(p *rule.Pass) {
		if rc, ok := p.Object.Typed.(*nodev1.RuntimeClass); ok {
			check(p, rc)
		}
	}
}

// RuntimeClassIsolationMismatch: the name promises one isolation, the
// handler delivers the other.
var RuntimeClassIsolationMismatch = &rule.Rule{
	ID:       "runtimeclass-isolation-mismatch",
	Title:    "RuntimeClass name and handler disagree on isolation",
	Severity: rule.Warning,
	Category: rule.Images,
	Kinds:    []string{"RuntimeClass"},
	Doc: rule.Doc{
		What: "Reports RuntimeClasses whose name says one Windows isolation mode (hyperv, hyper-v or isolated for Hyper-V; process for process isolation) while the handler selects the other (runhcs-wcow-hypervisor for Hyper-V, runhcs-wcow-process for process).",
		Why:  "Workload authors choose a RuntimeClass by its name. A class named for Hyper-V that runs process-isolated containers breaks images of older builds (`the container operating system does not match the host operating system`) and gives none of the isolation the name promises; the reverse silently adds a VM per pod.",
		Fix:  "Rename the RuntimeClass or change its handler so both say the same isolation.",
		Sources: []string{
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-containers/hyperv-container (runhcs-wcow-hypervisor selects Hyper-V isolation; process isolation is the default)",
		},
	},
	Object: onRuntimeClass(func(p *rule.Pass, rc *nodev1.RuntimeClass) {
		named, handled := nameIsolation(rc.Name), handlerIsolation(p, rc.Handler)
		if named == "" || handled == "" || named == handled {
			return
		}
		p.Report(rule.Finding{Path: "handler",
			Message: fmt.Sprintf("RuntimeClass %q is named for %s isolation but handler %q selects %s isolation", rc.Name, named, rc.Handler, handled),
			Hint:    "rename the RuntimeClass or change its handler"})
	}),
}

const (
	hyperVIsolation  = "Hyper-V"
	processIsolation = "process"
)

// nameIsolation reads the isolation a RuntimeClass name promises, "" when
// it says neither or both.
func nameIsolation(name string) string {
	n := strings.ToLower(name)
	hv := strings.Contains(n, "hyperv") || strings.Contains(n, "hyper-v") || strings.Contains(n, "isolated")
	proc := strings.Contains(n, "process")
	switch {
	case hv && !proc:
		return hyperVIsolation
	case proc && !(strings.Contains(n, "hyperv") || strings.Contains(n, "hyper-v")):
		return processIsolation // "process-isolated" is process isolation
	}
	return ""
}

// handlerIsolation reads the isolation a containerd handler selects, ""
// for handlers that are not the Windows runhcs ones.
func handlerIsolation(p *rule.Pass, handler string) string {
	h := strings.ToLower(handler)
	switch {
	case p.Model.HyperVHandler(h):
		return hyperVIsolation
	case strings.Contains(h, "process"):
		return processIsolation
	}
	return ""
}

// RuntimeClassBuildUnsupported: a RuntimeClass pinned to a Windows build
// no supported node runs.
var RuntimeClassBuildUnsupported = &rule.Rule{
	ID:       "runtimeclass-build-unsupported",
	Title:    "RuntimeClass pins a Windows build this Kubernetes version does not support",
	Severity: rule.Warning,
	Category: rule.Images,
	Kinds:    []string{"RuntimeClass"},
	Doc: rule.Doc{
		What: "Reports RuntimeClass objects whose scheduling.nodeSelector pins a Windows build (node.kubernetes.io/windows-build, or a managed platform's OS label such as kubernetes.azure.com/os-sku: Windows2019) that the selected Kubernetes version does not support as a node OS. The same pin reached through a workload's runtimeClassName is windows-build-unsupported's.",
		Why:  "The API server merges a RuntimeClass's scheduling.nodeSelector into every pod that names the class. A pin to a build no supported node runs (Windows Server 2019 after 1.33, an end-of-life Semi-Annual Channel release) leaves every such pod Pending once those nodes are gone, whoever writes the pods.",
		Fix:  "Pin a supported build (10.0.20348 or 10.0.26100) in the RuntimeClass, with images built for it, or retire the class.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/containers/runtime-class/#scheduling (scheduling.nodeSelector is merged into the pod's nodeSelector)",
			"https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support (Kubernetes support by Windows Server version)",
		},
	},
	Object: onRuntimeClass(func(p *rule.Pass, rc *nodev1.RuntimeClass) {
		if rc.Scheduling == nil {
			return
		}
		sel := field.NewPath("scheduling", "nodeSelector")
		for _, key := range buildKeys {
			v, ok := rc.Scheduling.NodeSelector[key]
			if !ok {
				continue
			}
			pin, ok := pinBuild(p, key, v)
			if !ok {
				continue
			}
			if b, ok := p.Model.BuildByNumber(pin); ok && b.Build == pin && !p.Model.NodeSupported(b) {
				p.Report(rule.Finding{Path: rule.Path(sel.Key(key)),
					Message: fmt.Sprintf("%s %s pins %s, %s: no pod of RuntimeClass %q can schedule on a supported node", key, v, b.Name, unsupportedText(p, b), rc.Name)})
			}
		}
	}),
}
