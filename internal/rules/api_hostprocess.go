package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// hostProcessCheck is the API server's HostProcess validation of one pod
// spec (validateWindowsHostProcessPod), with what a fix needs to know.
type hostProcessCheck struct {
	errs    field.ErrorList
	network *field.Error // the hostNetwork error, also in errs
	others  []string     // containers that are not HostProcess
}

// checkHostProcess mirrors validateWindowsHostProcessPod. A container
// inherits the pod's hostProcess unless it sets its own; once any container
// is HostProcess, all must be and the pod must use the host network. The
// cluster-policy error (--allow-privileged=false) is left out: it depends
// on the API server's flags, not on the manifest.
func checkHostProcess(s *corev1.PodSpec, specPath *field.Path) hostProcessCheck {
	var c hostProcessCheck
	var pod *bool
	if s.SecurityContext != nil && s.SecurityContext.WindowsOptions != nil {
		pod = s.SecurityContext.WindowsOptions.HostProcess
	}
	total, hp := 0, 0
	winsupport.VisitContainers(s, specPath, func(ctr *corev1.Container, p *field.Path) {
		total++
		var own *bool
		if ctr.SecurityContext != nil && ctr.SecurityContext.WindowsOptions != nil {
			own = ctr.SecurityContext.WindowsOptions.HostProcess
		}
		if pod != nil && own != nil && *pod != *own {
			c.errs = append(c.errs, field.Invalid(p.Child("securityContext", "windowsOptions", "hostProcess"), *own,
				fmt.Sprintf("pod hostProcess value must be identical if both are specified, was %v", *pod)))
		}
		switch {
		case own != nil && *own, own == nil && pod != nil && *pod:
			hp++
		default:
			c.others = append(c.others, ctr.Name)
		}
	})
	if hp == 0 {
		c.others = nil
		return c
	}
	if hp != total {
		c.errs = append(c.errs, field.Invalid(specPath, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers"))
	}
	if !s.HostNetwork {
		c.network = field.Invalid(specPath.Child("hostNetwork"), false, "hostNetwork must be true if pod contains any hostProcess containers")
		c.errs = append(c.errs, c.network)
	}
	return c
}

// HostProcessConsistency: the API server's HostProcess rules.
var HostProcessConsistency = &rule.Rule{
	ID:       "hostprocess-consistency",
	Title:    "HostProcess settings are inconsistent",
	Severity: rule.Error,
	Category: rule.API,
	Doc: rule.Doc{
		What: "Reports the three HostProcess errors of the API server, verbatim: a container's windowsOptions.hostProcess differs from the pod's (`pod hostProcess value must be identical if both are specified, was true`); some but not all containers are HostProcess (`If pod contains any hostProcess containers then all containers must be HostProcess containers`, reported on the pod spec); a HostProcess pod without hostNetwork: true (`hostNetwork must be true if pod contains any hostProcess containers`). These hold whatever spec.os.name says, from Kubernetes 1.23 (HostProcess beta). The API server's fourth check, `hostProcess containers are disallowed by cluster policy`, depends on its --allow-privileged flag and is not predicted.",
		Why:  "A HostProcess container runs directly on the Windows host, in the host's network namespace, with no container isolation; Windows cannot mix it with isolated containers in one pod. The API server rejects the pod, so a DaemonSet of node agents creates no pods at all.",
		Fix:  "Set hostNetwork: true (winkube fix does) and make every container HostProcess, best by setting securityContext.windowsOptions.hostProcess: true once at pod level and not on the containers.",
		Sources: []string{
			"k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go validateWindowsHostProcessPod",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers-hostnetwork (HostProcess containers, hostNetwork: true required)",
			"https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/ (HostProcess pod example)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !p.Model.Supports(winsupport.FeatureHostProcess) {
			return
		}
		c := checkHostProcess(p.Workload.Spec, p.Workload.SpecPath)
		for _, e := range c.errs {
			f := rule.Finding{Path: e.Field, Message: e.Error()}
			switch {
			case e == c.network:
				f.Fix = &rule.Fix{Title: "set hostNetwork: true", Safe: true,
					Edits: []rule.Edit{{Op: rule.Set, Path: e.Field, Value: true}}}
			case e.Field == rule.Path(p.Workload.SpecPath):
				f.Hint = "not HostProcess: " + strings.Join(c.others, ", ") + "; set windowsOptions.hostProcess: true at pod level, or move them to another pod"
			default:
				f.Hint = "set hostProcess once, at pod level"
			}
			p.Report(f)
		}
	},
}
