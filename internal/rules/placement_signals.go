package rules

import (
	"fmt"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// Message templates of conflicting-os-signals and missing-spec-os,
// declared once for the rules and their exported CEL (internal/policy).
const (
	SpecOSConflictMsg     = "spec.os.name is %s but the %s pins the workload to %s nodes; the kubelet refuses the pod there: %s"
	HostProcessOnLinuxMsg = "HostProcess container in a workload the %s pins to Linux nodes; HostProcess containers run only on Windows nodes"
	MissingSpecOSMsg      = "Windows workload (from %s) does not set spec.os.name: windows"
)

// ConflictingOSSignals: the pod says one OS in one place and the other in
// another.
var ConflictingOSSignals = &rule.Rule{
	ID:       "conflicting-os-signals",
	Title:    "Workload's OS signals contradict each other",
	Severity: rule.Error,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports workloads whose OS signals disagree: the scheduling pin (nodeSelector, required node affinity, RuntimeClass) names one OS and spec.os.name the other; a HostProcess container in a workload pinned to Linux; or a RuntimeClass whose scheduling.nodeSelector conflicts with the pod's own nodeSelector, reported in the API server's words (`conflict: runtimeClass.scheduling.nodeSelector[k] = v; pod.spec.nodeSelector[k] = v`).",
		Why:  "The scheduler reads only the pin, the kubelet only spec.os.name: a pod pinned to Linux with spec.os.name: windows is bound to a Linux node and refused there with `Failed to admit pod as the OS field doesn't match node OS`. HostProcess containers exist only on Windows. The RuntimeClass admission plugin refuses a pod whose nodeSelector contradicts its RuntimeClass, so a Deployment creates no pods at all.",
		Fix:  "Decide which OS the workload is for and make every signal say it: the nodeSelector, spec.os.name, hostProcess and the RuntimeClass. Drop the pod's own nodeSelector keys that its RuntimeClass already sets.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (the scheduler does not use spec.os.name; RuntimeClass scheduling)",
			"k8s.io/kubernetes v1.36.3 plugin/pkg/admission/runtimeclass/admission.go (the conflict message)",
			"k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go (PodOSNotSupported)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if f.Conflict != "" {
			p.Report(rule.Finding{Path: rule.Path(p.Workload.SpecPath.Child("runtimeClassName")),
				Message: f.Conflict + " (the RuntimeClass admission plugin rejects the pod when it is created)",
				Hint:    "remove the pod's own nodeSelector entry; the RuntimeClass " + f.RuntimeClassName + " sets it"})
		}
		if !f.Pinned {
			return
		}
		pin, by := f.Schedulable[0], pinSource(f)
		if so, ok := f.SpecOS(); ok && (so.OS == target.Windows || so.OS == target.Linux) && so.OS != pin {
			p.Report(rule.Finding{Path: rule.Path(so.Path),
				Message: fmt.Sprintf(SpecOSConflictMsg, so.OS, by, osWord(pin), winsupport.KubeletOSMismatch),
				Hint:    "make spec.os.name and the kubernetes.io/os selector name the same OS"})
		}
		if pin == target.Linux && f.HostProcess {
			p.Report(rule.Finding{Path: rule.Path(target.HostProcessPath(p.Workload.Spec, p.Workload.SpecPath)),
				Message: fmt.Sprintf(HostProcessOnLinuxMsg, by),
				Hint:    "pin the workload to windows, or drop hostProcess if it is a Linux workload"})
		}
	},
}

// pinSource names the constraint that pins the workload.
func pinSource(f *target.Facts) string {
	for _, s := range f.Signals {
		switch s.Source {
		case target.FromNodeSelector, target.FromNodeAffinity:
			return string(s.Source)
		case target.FromRuntimeClass:
			return fmt.Sprintf("RuntimeClass %q", s.Detail)
		}
	}
	return "scheduling constraint"
}

// MissingSpecOS: a Windows workload that does not say so to the API server
// and the kubelet.
var MissingSpecOS = &rule.Rule{
	ID:       "missing-spec-os",
	Title:    "Windows workload does not set spec.os.name",
	Severity: rule.Warning,
	Category: rule.Placement,
	Doc: rule.Doc{
		What: "Reports Windows-bound workloads (from the scheduling pin, HostProcess or Windows images) without spec.os.name, for Kubernetes releases that serve the field (1.24 and later with default feature gates).",
		Why:  "spec.os.name: windows is the only signal the control plane acts on besides the pin. Only with it does the API server apply the Windows validation (rejecting Linux-only fields up front instead of at container start), does the kubelet refuse a pod that reached a Linux node (`Failed to admit pod as the OS field doesn't match node OS`), and does Pod Security Admission relax the Linux-only controls that cannot apply to Windows pods. The scheduler still ignores it: keep the nodeSelector.",
		Fix:  "Set spec.os.name: windows in the pod template (winkube fix does). Remove any Linux-only securityContext fields first: windows-forbidden-field lists them.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (set .spec.os.name for each Pod; the fields that must not be set for windows)",
			"k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go (validateWindows runs only for spec.os.name: windows)",
			"k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go (PodOSNotSupported)",
			"https://kubernetes.io/docs/concepts/security/pod-security-standards/ (restricted: Linux-only controls are not required of windows pods)",
		},
	},
	Workload: func(p *rule.Pass) {
		f := p.Target
		if !f.Is(target.Windows) || !p.Model.Supports(winsupport.FeaturePodOS) {
			return
		}
		if p.Workload.Spec.OS != nil {
			return // a wrong or empty name is conflicting-os-signals' or invalid-os-name's
		}
		path := p.Workload.SpecPath.Child("os", "name")
		fd := rule.Finding{Path: rule.Path(path),
			Message: fmt.Sprintf(MissingSpecOSMsg, f.By),
			Hint:    "without it the API server skips the Windows validation, the kubelet does not refuse the pod on a Linux node and Pod Security Admission applies Linux-only controls",
			Fix: &rule.Fix{Title: "set spec.os.name to windows", Safe: true,
				Edits: []rule.Edit{{Op: rule.Set, Path: rule.Path(path), Value: "windows"}}}}
		// With Linux-only fields still present the API server would refuse
		// the fixed pod, so the fix waits for windows-forbidden-field's.
		if n := len(p.Model.ForbiddenFields(p.Workload.Spec, p.Workload.SpecPath)); n > 0 {
			fd.Fix.Safe = false
			fd.Hint = fmt.Sprintf("remove the %d Linux-only %s windows-forbidden-field reports first, or the API server rejects the pod; ", n, plural(n, "field", "fields")) + fd.Hint
		}
		p.Report(fd)
	},
}
