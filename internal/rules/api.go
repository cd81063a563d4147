package rules

import (
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

var apiRules = []*rule.Rule{
	WindowsForbiddenField,
	WindowsOptionsOnLinux,
	HostProcessConsistency,
	InvalidOSName,
	WindowsUsernameFormat,
	GMSACredentialSpecNameFormat,
	UnknownField,
	RemovedAPIVersion,
	InvalidObjectName,
	SelectorTemplateMismatch,
}

// WindowsForbiddenField: fields the API server rejects for Windows pods.
var WindowsForbiddenField = &rule.Rule{
	ID:       "windows-forbidden-field",
	Title:    "Field is rejected by the API server for Windows pods",
	Severity: rule.Error,
	Category: rule.API,
	Doc: rule.Doc{
		What:    "Reports pod fields the API server forbids once spec.os.name is windows, with its own path and wording (`spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod`): hostPID, hostIPC, hostUsers, shareProcessNamespace, the Linux securityContext fields of the pod and of every init, regular and ephemeral container, and pod-level resources, as of the selected Kubernetes version. Any non-nil value counts, false included. For a Windows workload that does not set spec.os.name yet, the same fields are warnings: they are rejected as soon as it does.",
		Why:     "These fields describe Linux kernel features (UIDs and GIDs, capabilities, seccomp, SELinux, AppArmor, /proc, namespaces) that Windows does not have. The API server refuses the whole pod, so a Deployment creates no pods at all.",
		Fix:     "Remove the fields from the Windows pod template (winkube fix --unsafe does, as it changes the security posture); use securityContext.windowsOptions.runAsUserName for identity and a HostProcess container instead of privileged.",
		Sources: []string{"k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go validateWindows and validatePodResources", "https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (the list of fields that must not be set)"},
	},
	Workload: func(p *rule.Pass) {
		if !p.Model.Supports("pod-os") {
			return
		}
		// The API server validates by spec.os.name alone, whatever the
		// scheduling constraints say.
		declared := p.Workload.Spec.OS != nil && p.Workload.Spec.OS.Name == "windows"
		if !declared && !p.Target.Is(target.Windows) {
			return
		}
		for _, f := range p.Model.ForbiddenFields(p.Workload.Spec, p.Workload.SpecPath) {
			fix := &rule.Fix{Title: "remove " + f.Err.Field, Edits: []rule.Edit{{Op: rule.Remove, Path: f.Err.Field}}}
			if declared {
				p.Report(rule.Finding{Path: f.Err.Field, Message: f.Err.Error(), Hint: f.Why, Fix: fix})
				continue
			}
			p.Report(rule.Finding{Path: f.Err.Field,
				Message: f.Err.Field + ": rejected as soon as spec.os.name: windows is set (" + f.Err.Detail + ")",
				Hint:    f.Why, Fix: fix}.WithSeverity(rule.Warning))
		}
	},
}
