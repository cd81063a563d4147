package target

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/winsupport"
)

// HostProcess reports whether the pod runs HostProcess containers:
// hostProcess: true on the pod or on any container (validation makes them
// all agree, so for a pod the API server accepts both readings are one).
func HostProcess(s *corev1.PodSpec) bool {
	return HostProcessPath(s, field.NewPath("spec")) != nil
}

// HostProcessPath is where hostProcess: true is set, under specPath: the
// pod's securityContext, or else the first container that sets it; nil
// when nothing does.
func HostProcessPath(s *corev1.PodSpec, specPath *field.Path) *field.Path {
	if s.SecurityContext != nil && isHostProcess(s.SecurityContext.WindowsOptions) {
		return specPath.Child("securityContext", "windowsOptions", "hostProcess")
	}
	var found *field.Path
	winsupport.VisitContainers(s, specPath, func(c *corev1.Container, cp *field.Path) {
		if found == nil && c.SecurityContext != nil && isHostProcess(c.SecurityContext.WindowsOptions) {
			found = cp.Child("securityContext", "windowsOptions", "hostProcess")
		}
	})
	return found
}

func isHostProcess(o *corev1.WindowsSecurityContextOptions) bool {
	return o != nil && o.HostProcess != nil && *o.HostProcess
}
