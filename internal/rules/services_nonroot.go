package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// runAsNonRootSources are the upstream files both runAsNonRoot rules rest on.
var runAsNonRootSources = []string{
	"k8s.io/kubernetes v1.36.3 pkg/kubelet/kuberuntime/security_context_windows.go verifyRunAsNonRoot",
	"k8s.io/kubernetes v1.36.3 pkg/kubelet/kuberuntime/kuberuntime_container.go startContainer (a generateContainerConfig error is the waiting reason CreateContainerConfigError)",
	"kubernetes.io/docs/concepts/security/windows-security/ (Security context: runAsNonRoot and ContainerAdministrator)",
	"kubernetes.io/docs/tasks/configure-pod-container/configure-runasusername/",
	"https://github.com/kubernetes/kubernetes/issues/112469 (runAsNonRoot is not enforced for images that set no user)",
}

// nonRootVerdict is the kubelet's runAsNonRoot verdict on one container.
type nonRootVerdict struct {
	v     winsupport.NonRoot
	user  string
	image winsupport.ImageUser
	c     *corev1.Container
	path  *field.Path // the container's
	name  *field.Path // where the effective runAsUserName is set
}

// eachNonRoot calls fn with the kubelet's runAsNonRoot verdict on every
// container of a Windows-bound workload.
func eachNonRoot(p *rule.Pass, fn func(nonRootVerdict)) {
	if !windowsBound(p) {
		return
	}
	s := p.Workload.Spec
	winsupport.VisitContainers(s, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
		img := rule.ImageUser(p.Images, p.Model, c.Image)
		v, user := winsupport.RunAsNonRoot(s, c, img)
		if v == winsupport.NonRootUnchecked || v == winsupport.NonRootUnknown {
			return
		}
		name := cp.Child("securityContext", "windowsOptions", "runAsUserName")
		if c.SecurityContext == nil || c.SecurityContext.WindowsOptions == nil || c.SecurityContext.WindowsOptions.RunAsUserName == nil {
			if v == winsupport.NonRootRefusedName {
				name = p.Workload.SpecPath.Child("securityContext", "windowsOptions", "runAsUserName")
			}
		}
		fn(nonRootVerdict{v: v, user: user, image: img, c: c, path: cp, name: name})
	})
}

// containerUserFix sets the container's runAsUserName to ContainerUser.
// Not safe: an application that writes where only administrators may
// fails under ContainerUser.
func containerUserFix(cp *field.Path) *rule.Fix {
	return &rule.Fix{Title: "run the container as ContainerUser", Edits: []rule.Edit{{
		Op: rule.Set, Path: rule.Path(cp.Child("securityContext", "windowsOptions", "runAsUserName")), Value: "ContainerUser"}}}
}

// WindowsRunAsNonRootAdministrator: the kubelet refuses a runAsNonRoot
// container that would run as ContainerAdministrator.
var WindowsRunAsNonRootAdministrator = &rule.Rule{
	ID:       "windows-runasnonroot-administrator",
	Title:    "runAsNonRoot container runs as ContainerAdministrator: the Windows kubelet refuses it",
	Severity: rule.Error,
	Category: rule.Identity,
	Doc: rule.Doc{
		What:    "Reports, on Windows-bound workloads, every container (init, regular and ephemeral) whose effective securityContext has runAsNonRoot: true and whose effective windowsOptions.runAsUserName is ContainerAdministrator (in any case), or, with runAsUserName unset, whose image's config names ContainerAdministrator as its user. The image's user is read from the registry with --resolve-images, else from winkube's table of well-known Windows images; an image whose user is unknown is not reported. The message is the kubelet's.",
		Why:     "Windows has no uid 0; the kubelet regards ContainerAdministrator as root. When runAsNonRoot is true it refuses to create such a container: the pod stays in CreateContainerConfigError with `container's runAsUserName (ContainerAdministrator) which will be regarded as root identity and will break non-root policy`, or `container's runAsUser (ContainerAdministrator) ...` when the user comes from the image.",
		Fix:     "Run the container as ContainerUser (securityContext.windowsOptions.runAsUserName: ContainerUser; winkube fix --unsafe sets it on the container), or drop runAsNonRoot if the container really needs administrator rights.",
		Sources: runAsNonRootSources,
	},
	Workload: func(p *rule.Pass) {
		eachNonRoot(p, func(n nonRootVerdict) {
			switch n.v {
			case winsupport.NonRootRefusedName:
				p.Report(rule.Finding{Path: rule.Path(n.name), Message: nonRootMessage(winsupport.KubeletRunAsUserNameRoot, n),
					Hint: "runAsNonRoot: true forbids ContainerAdministrator; run as ContainerUser or drop runAsNonRoot", Fix: containerUserFix(n.path)})
			case winsupport.NonRootRefusedImage:
				p.Report(rule.Finding{Path: rule.Path(n.path.Child("image")), Message: nonRootMessage(winsupport.KubeletImageUserRoot, n),
					Hint: fmt.Sprintf("the image's user is ContainerAdministrator (%s); set runAsUserName: ContainerUser", n.image.Source), Fix: containerUserFix(n.path)})
			}
		})
	},
}

// WindowsRunAsNonRootNotEnforced: runAsNonRoot that the Windows kubelet
// cannot enforce, because the image names no user.
var WindowsRunAsNonRootNotEnforced = &rule.Rule{
	ID:       "windows-runasnonroot-not-enforced",
	Title:    "runAsNonRoot is not enforced: the container runs as ContainerAdministrator",
	Severity: rule.Warning,
	Category: rule.Identity,
	Doc: rule.Doc{
		What:    "Reports, on Windows-bound workloads, every container whose effective securityContext has runAsNonRoot: true, sets no windowsOptions.runAsUserName (at container or pod level), and whose image's config names no user (Server Core, Windows Server and the images built on them, such as .NET Framework and IIS). The image's user is read from the registry with --resolve-images, else from winkube's table of well-known Windows images; an image whose user is unknown is not reported.",
		Why:     "The kubelet's runAsNonRoot check on Windows compares runAsUserName, or else the image's configured user, with ContainerAdministrator. When both are empty the check passes, and Windows starts the entrypoint as ContainerAdministrator, the container's default: the security control the author relies on does nothing (kubernetes/kubernetes#112469, closed without a fix). Nano Server images name ContainerUser and are not affected.",
		Fix:     "Set securityContext.windowsOptions.runAsUserName: ContainerUser (winkube fix --unsafe sets it on the container; check the application can run without administrator rights), or build the image with USER ContainerUser.",
		Sources: runAsNonRootSources,
	},
	Workload: func(p *rule.Pass) {
		eachNonRoot(p, func(n nonRootVerdict) {
			if n.v != winsupport.NonRootNotEnforced {
				return
			}
			p.Report(rule.Finding{Path: rule.Path(n.path.Child("image")),
				Message: fmt.Sprintf(NonRootNotEnforcedMsg, n.c.Name, n.c.Image),
				Hint:    fmt.Sprintf("%s; set securityContext.windowsOptions.runAsUserName: ContainerUser", n.image.Source),
				Fix:     containerUserFix(n.path)})
		})
	},
}

// NonRootNotEnforcedMsg is windows-runasnonroot-not-enforced's message:
// the container's name and image.
const NonRootNotEnforcedMsg = "runAsNonRoot is not enforced for container %q: image %s sets no user, so the kubelet's check passes and the container runs as ContainerAdministrator"

// nonRootMessage is the kubelet's refusal; lint knows no pod name or UID,
// so "<pod>" stands for format.Pod's name_namespace(uid).
func nonRootMessage(format string, n nonRootVerdict) string {
	return "CreateContainerConfigError: " + fmt.Sprintf(format, n.user, "<pod>", n.c.Name)
}
