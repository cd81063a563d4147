package winsupport

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// forbiddenField is a pod field the API server rejects once
// spec.os.name is windows.
type forbiddenField struct {
	Path   []string // relative to the pod spec, or to a container for Container rows
	Since  Version  // first release that serves the field by default
	Detail string   // the API server's detail text
	Why    string   // what the field means on Windows and what to use instead
	set    func(*corev1.PodSpec, *corev1.Container) bool
}

const (
	cannotBeSet = "cannot be set for a windows pod"
	mayNotBeSet = "may not be set for a windows pod"
	sourceAPI   = "k8s.io/kubernetes v1.36.3 pkg/apis/core/validation/validation.go (validateWindows, validatePodResources); https://kubernetes.io/docs/concepts/windows/intro/#windows-os-version-support"
)

func podSC(s *corev1.PodSpec) *corev1.PodSecurityContext {
	if s.SecurityContext == nil {
		return &corev1.PodSecurityContext{}
	}
	return s.SecurityContext
}

func ctrSC(c *corev1.Container) *corev1.SecurityContext {
	if c.SecurityContext == nil {
		return &corev1.SecurityContext{}
	}
	return c.SecurityContext
}

// podForbidden lists pod-level fields in the order the API server checks them.
var podForbidden = []forbiddenField{
	{Path: []string{"securityContext", "appArmorProfile"}, Since: Version{30}, Detail: cannotBeSet, Why: "AppArmor is a Linux security module", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).AppArmorProfile != nil }},
	{Path: []string{"securityContext", "seLinuxOptions"}, Since: Version{23}, Detail: cannotBeSet, Why: "SELinux is Linux-specific", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).SELinuxOptions != nil }},
	{Path: []string{"hostUsers"}, Since: Version{33}, Detail: cannotBeSet, Why: "user namespaces are a Linux feature", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return s.HostUsers != nil }},
	{Path: []string{"hostPID"}, Since: Version{23}, Detail: cannotBeSet, Why: "host namespace sharing is not possible on Windows", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return s.HostPID }},
	{Path: []string{"hostIPC"}, Since: Version{23}, Detail: cannotBeSet, Why: "host namespace sharing is not possible on Windows", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return s.HostIPC }},
	{Path: []string{"securityContext", "seccompProfile"}, Since: Version{23}, Detail: cannotBeSet, Why: "seccomp is a Linux kernel feature", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).SeccompProfile != nil }},
	{Path: []string{"securityContext", "fsGroup"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no GIDs; volume ownership is not changed", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).FSGroup != nil }},
	{Path: []string{"securityContext", "fsGroupChangePolicy"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no GIDs; volume ownership is not changed", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).FSGroupChangePolicy != nil }},
	{Path: []string{"securityContext", "sysctls"}, Since: Version{23}, Detail: cannotBeSet, Why: "sysctls are part of the Linux kernel interface", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return len(podSC(s).Sysctls) > 0 }},
	{Path: []string{"shareProcessNamespace"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows cannot share process namespaces", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return s.ShareProcessNamespace != nil }},
	{Path: []string{"securityContext", "runAsUser"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no UIDs; use securityContext.windowsOptions.runAsUserName", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).RunAsUser != nil }},
	{Path: []string{"securityContext", "runAsGroup"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no GIDs", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).RunAsGroup != nil }},
	{Path: []string{"securityContext", "supplementalGroups"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no GIDs", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).SupplementalGroups != nil }},
	{Path: []string{"securityContext", "supplementalGroupsPolicy"}, Since: Version{33}, Detail: cannotBeSet, Why: "Windows has no GIDs", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).SupplementalGroupsPolicy != nil }},
	{Path: []string{"securityContext", "seLinuxChangePolicy"}, Since: Version{33}, Detail: cannotBeSet, Why: "SELinux is Linux-specific", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return podSC(s).SELinuxChangePolicy != nil }},
	{Path: []string{"resources"}, Since: Version{34}, Detail: mayNotBeSet, Why: "pod-level resources are not implemented on Windows; set resources per container", set: func(s *corev1.PodSpec, _ *corev1.Container) bool { return s.Resources != nil }},
}

// containerForbidden lists container securityContext fields, checked for
// every init, regular and ephemeral container.
var containerForbidden = []forbiddenField{
	{Path: []string{"securityContext", "appArmorProfile"}, Since: Version{30}, Detail: cannotBeSet, Why: "AppArmor is a Linux security module", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).AppArmorProfile != nil }},
	{Path: []string{"securityContext", "seLinuxOptions"}, Since: Version{23}, Detail: cannotBeSet, Why: "SELinux is Linux-specific", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).SELinuxOptions != nil }},
	{Path: []string{"securityContext", "seccompProfile"}, Since: Version{23}, Detail: cannotBeSet, Why: "seccomp is a Linux kernel feature", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).SeccompProfile != nil }},
	{Path: []string{"securityContext", "capabilities"}, Since: Version{23}, Detail: cannotBeSet, Why: "POSIX capabilities are not implemented on Windows", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).Capabilities != nil }},
	{Path: []string{"securityContext", "readOnlyRootFilesystem"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows containers need write access for the registry and system processes; read-only volumes still work", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).ReadOnlyRootFilesystem != nil }},
	{Path: []string{"securityContext", "privileged"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no privileged containers; use a HostProcess container", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).Privileged != nil }},
	{Path: []string{"securityContext", "allowPrivilegeEscalation"}, Since: Version{23}, Detail: cannotBeSet, Why: "not possible on Windows; none of the capabilities are hooked up", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).AllowPrivilegeEscalation != nil }},
	{Path: []string{"securityContext", "procMount"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no /proc filesystem", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).ProcMount != nil }},
	{Path: []string{"securityContext", "runAsUser"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no UIDs; use securityContext.windowsOptions.runAsUserName", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).RunAsUser != nil }},
	{Path: []string{"securityContext", "runAsGroup"}, Since: Version{23}, Detail: cannotBeSet, Why: "Windows has no GIDs", set: func(_ *corev1.PodSpec, c *corev1.Container) bool { return ctrSC(c).RunAsGroup != nil }},
}

// Forbidden is one field of a pod spec that the API server would reject
// for spec.os.name: windows.
type Forbidden struct {
	Err *field.Error // Path and the API server's message: Err.Error()
	Why string
}

// ForbiddenFields returns every field set in spec that the API server of
// this release rejects for a Windows pod, in the order it reports them.
// specPath is where the pod spec sits in the object (spec, or
// spec.template.spec, ...).
func (m Model) ForbiddenFields(spec *corev1.PodSpec, specPath *field.Path) []Forbidden {
	var out []Forbidden
	add := func(f forbiddenField, base *field.Path, c *corev1.Container) {
		if m.V.Less(f.Since) || !f.set(spec, c) {
			return
		}
		p := base
		for _, s := range f.Path {
			p = p.Child(s)
		}
		out = append(out, Forbidden{Err: field.Forbidden(p, f.Detail), Why: f.Why})
	}
	for _, f := range podForbidden {
		add(f, specPath, nil)
	}
	VisitContainers(spec, specPath, func(c *corev1.Container, p *field.Path) {
		for _, f := range containerForbidden {
			add(f, p, c)
		}
	})
	return out
}

// ForbiddenFieldNames lists the forbidden field paths of this release, for
// documentation: pod-level relative to the pod spec, container-level
// relative to a container.
func (m Model) ForbiddenFieldNames() (pod, container []string) {
	for _, f := range podForbidden {
		if !m.V.Less(f.Since) {
			pod = append(pod, joinPath(f.Path))
		}
	}
	for _, f := range containerForbidden {
		if !m.V.Less(f.Since) {
			container = append(container, joinPath(f.Path))
		}
	}
	return pod, container
}

func joinPath(p []string) string {
	s := p[0]
	for _, x := range p[1:] {
		s += "." + x
	}
	return s
}

// VisitContainers calls fn for every init, regular and ephemeral container
// with its field path, in the API server's order.
func VisitContainers(spec *corev1.PodSpec, specPath *field.Path, fn func(*corev1.Container, *field.Path)) {
	for i := range spec.InitContainers {
		fn(&spec.InitContainers[i], specPath.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		fn(&spec.Containers[i], specPath.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		fn((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), specPath.Child("ephemeralContainers").Index(i))
	}
}
