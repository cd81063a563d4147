package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// WindowsHugepages: huge pages, which Windows nodes do not offer.
var WindowsHugepages = &rule.Rule{
	ID:       "windows-hugepages",
	Title:    "Windows container requests huge pages",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports non-zero hugepages-<size> requests or limits of any container of a Windows workload (once per container and size), and emptyDir volumes with medium HugePages.",
		Why:  "HugePages are not supported on Windows: Windows nodes advertise no hugepages-* capacity, so the scheduler finds no Windows node with room for the pod, which stays Pending with `Insufficient hugepages-2Mi`; a HugePages emptyDir needs hugetlbfs, which Windows lacks.",
		Fix:  "Remove the hugepages requests and limits (and HugePages emptyDir volumes) from the Windows workload.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers (HugePages: not supported on Windows; no hugepages in Windows resource specs)",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod-spec-containers (HugePages: not currently supported in Windows containers)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) {
			return
		}
		winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
			reportHugepages(p, c.Resources, cp.Child("resources"))
		})
		for i, v := range p.Workload.Spec.Volumes {
			if v.EmptyDir != nil && strings.HasPrefix(string(v.EmptyDir.Medium), string(corev1.StorageMediumHugePages)) {
				p.Report(rule.Finding{Path: rule.Path(p.Workload.SpecPath.Child("volumes").Index(i).Child("emptyDir", "medium")),
					Message: fmt.Sprintf("emptyDir %q has medium %s: Windows has no huge pages (hugetlbfs)", v.Name, v.EmptyDir.Medium)})
			}
		}
	},
}

// reportHugepages reports each hugepages size of one container once, at
// its request (or its limit when only the limit is set).
func reportHugepages(p *rule.Pass, r corev1.ResourceRequirements, rp *field.Path) {
	lists := []struct {
		name string
		rl   corev1.ResourceList
	}{{"requests", r.Requests}, {"limits", r.Limits}}
	seen := map[corev1.ResourceName]bool{}
	for _, list := range lists {
		for _, name := range slices.Sorted(maps.Keys(list.rl)) {
			q := list.rl[name]
			if !strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) || q.IsZero() || seen[name] {
				continue
			}
			seen[name] = true
			// Requests and limits of huge pages must be equal: remove both.
			fix := &rule.Fix{Title: "remove " + string(name)}
			for _, l := range lists {
				if _, ok := l.rl[name]; ok {
					fix.Edits = append(fix.Edits, rule.Edit{Op: rule.Remove, Path: rule.Path(rp.Child(l.name).Key(string(name)))})
				}
			}
			p.Report(rule.Finding{Path: rule.Path(rp.Child(list.name).Key(string(name))),
				Message: fmt.Sprintf("%s %s on a Windows container: Windows has no huge pages, so no Windows node has room and the pod stays Pending (Insufficient %s)", name, q.String(), name),
				Fix:     fix})
		}
	}
}

// WindowsLinuxShell: a Linux shell as a Windows container's entrypoint.
var WindowsLinuxShell = &rule.Rule{
	ID:       "windows-linux-shell",
	Title:    "Windows container runs a Linux shell",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports a container of a Windows workload whose command[0] is a Linux shell (/bin/sh, sh, bash, /bin/ash, /usr/bin/env...). args are not checked: without a command they are arguments to the image's own entrypoint.",
		Why:  "Windows images have no /bin/sh or bash: the container fails to start with an executable-not-found error and the pod goes into CrashLoopBackOff. Commands are usually copied from the Linux version of a manifest.",
		Fix:  "Use the Windows shells: command: [\"cmd.exe\", \"/c\", ...] or [\"powershell.exe\", \"-Command\", ...] (pwsh on Nano Server images that ship PowerShell), and translate the script.",
		Sources: []string{
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-docker/manage-windows-dockerfile (Windows pods run powershell.exe / cmd.exe commands)",
			"https://learn.microsoft.com/en-us/virtualization/windowscontainers/manage-docker/manage-windows-dockerfile (kubectl exec into Windows containers with cmd.exe or PowerShell; command: [\"powershell.exe\", ...])",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) {
			return
		}
		winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
			if len(c.Command) == 0 || !p.Model.LinuxShell(c.Command[0]) {
				return
			}
			p.Report(rule.Finding{Path: rule.Path(cp.Child("command").Index(0)),
				Message: fmt.Sprintf(LinuxShellMsg, c.Name, c.Command[0]),
				Hint:    "use cmd.exe /c or powershell.exe -Command and translate the script"})
		})
	},
}

// WindowsSidecarUnsupported: restartable init containers before the
// release that turns them on.
var WindowsSidecarUnsupported = &rule.Rule{
	ID:       "windows-sidecar-unsupported",
	Title:    "Windows pod uses sidecar containers the release does not support",
	Severity: rule.Error,
	Category: rule.LinuxOnly,
	Doc: rule.Doc{
		What: "Reports initContainers[].restartPolicy: Always (sidecar containers) on a Windows workload when the selected Kubernetes release does not enable sidecar containers by default (before 1.29, when SidecarContainers went beta).",
		Why:  "Without the SidecarContainers feature the API server drops restartPolicy from init containers, so the sidecar runs as an ordinary init container: a long-running sidecar (log shipper, proxy) never exits, and the app containers never start.",
		Fix:  "Upgrade the cluster to 1.29 or later, or run the sidecar as a regular container.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-linux-similarities (sidecar containers supported on Windows from 1.28)",
			"https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/ (SidecarContainers: alpha 1.28, beta and on by default 1.29, GA 1.33)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) || p.Model.Supports(winsupport.FeatureSidecars) {
			return
		}
		for i, c := range p.Workload.Spec.InitContainers {
			if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
				continue
			}
			p.Report(rule.Finding{Path: rule.Path(p.Workload.SpecPath.Child("initContainers").Index(i).Child("restartPolicy")),
				Message: fmt.Sprintf("init container %q is a sidecar (restartPolicy: Always), which Kubernetes %s does not enable: it runs as a plain init container and, if it never exits, the pod never starts", c.Name, p.Model.V),
				Hint:    "sidecar containers need Kubernetes 1.29 or later; move it to containers until then"})
		}
	},
}
