package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// apiOSNames are the values the API server accepts for spec.os.name,
// sorted as it lists them.
var apiOSNames = []string{string(corev1.Linux), string(corev1.Windows)}

// osNameErrors is the API server's check of spec.os (validateOS).
func osNameErrors(s *corev1.PodSpec, specPath *field.Path) field.ErrorList {
	if s.OS == nil {
		return nil
	}
	osPath := specPath.Child("os")
	if s.OS.Name == "" {
		return field.ErrorList{field.Required(osPath.Child("name"), "")}
	}
	for _, v := range apiOSNames {
		if string(s.OS.Name) == v {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(osPath, s.OS.Name, apiOSNames)}
}

// linuxPodErrors is the API server's check of a pod declared linux
// (validateLinux): no windowsOptions at pod or container level.
func linuxPodErrors(s *corev1.PodSpec, specPath *field.Path) field.ErrorList {
	const detail = "windows options cannot be set for a linux pod"
	var errs field.ErrorList
	if s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil {
		errs = append(errs, field.Forbidden(specPath.Child("securityContext", "windowsOptions"), detail))
	}
	winsupport.VisitContainers(s, specPath, func(c *corev1.Container, p *field.Path) {
		if c.SecurityContext != nil && c.SecurityContext.WindowsOptions != nil {
			errs = append(errs, field.Forbidden(p.Child("securityContext", "windowsOptions"), detail))
		}
	})
	return errs
}

// firstWindowsSignal returns the first piece of evidence that the workload is
// meant for Windows.
func firstWindowsSignal(f *target.Facts) (target.Signal, bool) {
	for _, s := range f.Signals {
		if s.OS == target.Windows {
			return s, true
		}
	}
	return target.Signal{}, false
}

// WindowsOptionsOnLinux: the API server refuses windowsOptions once the pod
// says it is Linux.
var WindowsOptionsOnLinux = &rule.Rule{
	ID:       "windows-options-on-linux",
	Title:    "Windows security options are set on a pod declared linux",
	Severity: rule.Error,
	Category: rule.API,
	Doc: rule.Doc{
		What: "Reports securityContext.windowsOptions, on the pod or on any init, regular or ephemeral container, of a pod whose spec.os.name is linux, in the API server's wording: `spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod`. Applies from Kubernetes 1.24, when spec.os is served by default. On a workload pinned to Linux nodes that does not set spec.os, the same fields are warnings: the Linux kubelet ignores them (it builds no Windows config), and the API server rejects them as soon as spec.os.name: linux is set.",
		Why:  "spec.os.name tells the API server which OS-specific fields to allow. A pod declared linux must not carry Windows-only settings (runAsUserName, gMSA, HostProcess), so the API server rejects the whole pod and a Deployment creates none. Usually a Windows template was copied to Linux, or spec.os.name is wrong.",
		Fix:  "If the pod is Linux, remove windowsOptions (winkube fix does). If it is Windows (HostProcess, Windows images, a windows node selector), set spec.os.name: windows instead.",
		Sources: []string{
			"k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go validateLinux",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (spec.os.name and the fields each OS allows)",
		},
	},
	Workload: func(p *rule.Pass) {
		s := p.Workload.Spec
		if s.OS == nil && p.Target.Is(target.Linux) && p.Target.Pinned {
			windowsOptionsIgnored(p)
			return
		}
		if !p.Model.Supports(winsupport.FeaturePodOS) || s.OS == nil || s.OS.Name != corev1.Linux {
			return
		}
		sig, windows := firstWindowsSignal(p.Target)
		for _, e := range linuxPodErrors(s, p.Workload.SpecPath) {
			f := rule.Finding{Path: e.Field, Message: e.Error()}
			if windows {
				f.Hint = fmt.Sprintf("the workload looks Windows (from %s): set spec.os.name: windows rather than removing windowsOptions", sig.Source)
			} else {
				f.Hint = "remove windowsOptions: they have no effect on Linux"
				f.Fix = &rule.Fix{Title: "remove " + e.Field, Safe: true, Edits: []rule.Edit{{Op: rule.Remove, Path: e.Field}}}
			}
			p.Report(f)
		}
	},
}

// InvalidOSName: spec.os present with a name the API server does not know.
var InvalidOSName = &rule.Rule{
	ID:       "invalid-os-name",
	Title:    "spec.os.name is empty or not linux or windows",
	Severity: rule.Error,
	Category: rule.API,
	Doc: rule.Doc{
		What: "Reports a pod template whose spec.os is set without a name (`spec.os.name: Required value`) or with a value other than linux and windows (`spec.os: Unsupported value: \"Windows\": supported values: \"linux\", \"windows\"`, note the path is spec.os), in the API server's wording. Applies from Kubernetes 1.24, when spec.os is served by default.",
		Why:  "The values are case-sensitive and match the kubernetes.io/os node label. The API server rejects the pod, so no replica is created, and none of the OS-specific validation runs until the name is right.",
		Fix:  "Write spec.os.name: windows or linux in lower case (winkube fix lower-cases a wrongly capitalised name), or remove spec.os.",
		Sources: []string{
			"k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go validateOS",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (spec.os.name values linux and windows)",
		},
	},
	Workload: func(p *rule.Pass) {
		s := p.Workload.Spec
		if !p.Model.Supports(winsupport.FeaturePodOS) {
			return
		}
		namePath := rule.Path(p.Workload.SpecPath.Child("os", "name"))
		for _, e := range osNameErrors(s, p.Workload.SpecPath) {
			f := rule.Finding{Path: e.Field, Message: e.Error()}
			lower := strings.ToLower(strings.TrimSpace(string(s.OS.Name)))
			switch {
			case lower == "linux" || lower == "windows":
				f.Fix = &rule.Fix{Title: "set spec.os.name to " + lower, Safe: true,
					Edits: []rule.Edit{{Op: rule.Set, Path: namePath, Value: lower}}}
			case p.Target.OS != target.Unknown:
				f.Hint = fmt.Sprintf("the workload is %s (from %s): set spec.os.name: %s", osWord(p.Target.OS), p.Target.By, p.Target.OS)
			default:
				f.Hint = "set spec.os.name to linux or windows, or remove spec.os"
			}
			p.Report(f)
		}
	},
}

// windowsOptionsIgnored warns of windowsOptions on a workload pinned to
// Linux nodes without spec.os: accepted, and ignored by the Linux
// kubelet (kuberuntime's generateLinuxContainerConfig reads no
// windowsOptions).
func windowsOptionsIgnored(p *rule.Pass) {
	for _, w := range windowsOptionsOf(p.Workload.Spec, p.Workload.SpecPath) {
		path := rule.Path(w.path)
		p.Report(rule.Finding{Path: path,
			Message: fmt.Sprintf("%s: the workload is pinned to Linux nodes (from %s), whose kubelet ignores windows options; the API server rejects them (windows options cannot be set for a linux pod) once spec.os.name: linux is set", path, p.Target.By),
			Hint:    "remove windowsOptions, or pin the workload to Windows if it is a Windows workload",
			Fix:     &rule.Fix{Title: "remove " + path, Safe: true, Edits: []rule.Edit{{Op: rule.Remove, Path: path}}},
		}.WithSeverity(rule.Warning))
	}
}
