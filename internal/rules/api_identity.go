package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
)

// WindowsUsernameFormat: runAsUserName values the API server refuses.
var WindowsUsernameFormat = &rule.Rule{
	ID:       "windows-username-format",
	Title:    "windowsOptions.runAsUserName is not a valid Windows user name",
	Severity: rule.Error,
	Category: rule.API,
	Doc: rule.Doc{
		What: "Checks securityContext.windowsOptions.runAsUserName of the pod and of every container as the API server does, and reports its errors verbatim: empty, control characters, more than one backslash, a domain of 256 characters or more, a domain that is neither a NetBIOS name (1-15 characters, none of \\/:*?\"<>|, no leading dot) nor a DNS name, an empty user or one over 104 characters, a user of only periods or spaces, a user containing any of \"/\\:;|=,+*?<>@[]. The API server checks these whatever the pod's OS.",
		Why:  "runAsUserName is the Windows identity the container's entrypoint runs as (ContainerUser, ContainerAdministrator, NT AUTHORITY\\SYSTEM, DOMAIN\\user). An invalid name makes the API server reject the pod. A common cause is YAML escaping: in a double-quoted string \"NT AUTHORITY\\\\SYSTEM\" needs two backslashes, while a plain or single-quoted scalar needs one.",
		Fix:  "Write the name as USER or DOMAIN\\USER with exactly one backslash, e.g. runAsUserName: 'NT AUTHORITY\\SYSTEM' or ContainerUser.",
		Sources: []string{
			"k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go validateWindowsSecurityContextOptions",
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-runasusername/ (runAsUserName \"NT AUTHORITY\\\\SYSTEM\" for HostProcess)",
		},
	},
	Workload: func(p *rule.Pass) {
		for _, w := range windowsOptionsOf(p.Workload.Spec, p.Workload.SpecPath) {
			errs := userNameErrors(w.opts, w.path)
			if len(errs) == 0 {
				continue
			}
			// A doubled backslash is YAML escaping applied twice.
			name := *w.opts.RunAsUserName
			if once := strings.Replace(name, `\\`, `\`, 1); once != name && len(userNameErrors(&corev1.WindowsSecurityContextOptions{RunAsUserName: &once}, w.path)) == 0 {
				reportFieldErrors(p, errs, "write one backslash between domain and user: plain or single-quoted 'NT AUTHORITY\\SYSTEM', double-quoted \"NT AUTHORITY\\\\SYSTEM\"",
					&rule.Fix{Title: "use a single backslash", Safe: true, Edits: []rule.Edit{{Op: rule.Set, Path: errs[0].Field, Value: once}}})
				continue
			}
			reportFieldErrors(p, errs, "", nil)
		}
	},
}

// GMSACredentialSpecNameFormat: gMSA fields the API server refuses.
var GMSACredentialSpecNameFormat = &rule.Rule{
	ID:       "gmsa-credential-spec-name-format",
	Title:    "gMSA credential spec name or content is invalid",
	Severity: rule.Error,
	Category: rule.API,
	Doc: rule.Doc{
		What: "Reports, verbatim, the API server's errors for securityContext.windowsOptions of the pod and of every container: a gmsaCredentialSpecName that is not a DNS-1123 subdomain (lower case letters, digits, '-' and '.', at most 253 characters), an empty gmsaCredentialSpec, and one over 64 KiB. The API server checks these whatever the pod's OS.",
		Why:  "gmsaCredentialSpecName names a GMSACredentialSpec custom resource, whose name must be a DNS subdomain; the gMSA admission webhook then fills gmsaCredentialSpec with its JSON. A name copied from Active Directory (CamelCase, underscores) makes the API server reject the pod before the webhook can help.",
		Fix:  "Use the metadata.name of the GMSACredentialSpec object (lower case), and leave gmsaCredentialSpec to the webhook rather than setting it empty. winkube fix offers no rename: the GMSACredentialSpec object, the RBAC resourceNames that grant its use and every pod must change together.",
		Sources: []string{
			"k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go validateWindowsSecurityContextOptions",
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-gmsa/ (GMSACredentialSpec objects and the gMSA webhook)",
			"https://kubernetes.io/docs/tasks/configure-pod-container/configure-gmsa/ (gMSA needs CRDs and an admission webhook)",
		},
	},
	Workload: func(p *rule.Pass) {
		for _, w := range windowsOptionsOf(p.Workload.Spec, p.Workload.SpecPath) {
			for _, e := range gmsaErrors(w.opts, w.path) {
				f := rule.Finding{Path: e.Field, Message: e.Error()}
				// No fix: renaming the reference alone would break it. The
				// GMSACredentialSpec object, RBAC resourceNames and every
				// other pod must be renamed with it, and a fix edits one
				// object only.
				if n := w.opts.GMSACredentialSpecName; n != nil && e.Field == rule.Path(w.path.Child("gmsaCredentialSpecName")) {
					if lower := strings.ToLower(*n); lower != *n && len(validation.IsDNS1123Subdomain(lower)) == 0 {
						f.Hint = fmt.Sprintf("rename the GMSACredentialSpec to %q and every reference with it (gmsaCredentialSpecName in each pod, RBAC resourceNames for the use verb)", lower)
					}
				}
				p.Report(f)
			}
		}
	},
}

// reportFieldErrors reports each API server error at its own field.
func reportFieldErrors(p *rule.Pass, errs field.ErrorList, hint string, fix *rule.Fix) {
	for _, e := range errs {
		p.Report(rule.Finding{Path: e.Field, Message: e.Error(), Hint: hint, Fix: fix})
	}
}
