package fidelity

import (
	corev1 "k8s.io/api/core/v1"
)

// osFields sometimes sets spec.os.name, and then sometimes fields the API
// server forbids for that OS, one or two of them, so that both the
// rejection and its message (a single error or a bracketed list) are
// exercised. Linux security fields on pods without spec.os are accepted.
func (g *gen) osFields(p *corev1.Pod, intent string) {
	if !g.chance(0.3) {
		if intent == "linux" && g.chance(0.15) {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: new(int64(1000))}
		}
		return
	}
	os := intent
	if os == "" {
		os = pick(g, "linux", "windows")
	}
	p.Spec.OS = &corev1.PodOS{Name: corev1.OSName(os)}
	if os == "windows" && g.chance(0.25) {
		sc := ctrSecurity(&p.Spec.Containers[0])
		sc.WindowsOptions = &corev1.WindowsSecurityContextOptions{RunAsUserName: new("ContainerAdministrator")}
	}
	if !g.chance(0.4) {
		return
	}
	for range 1 + g.weighted(70, 30) {
		if os == "windows" {
			g.windowsForbidden(p)
		} else {
			g.linuxForbidden(p)
		}
	}
}

func podSecurity(p *corev1.Pod) *corev1.PodSecurityContext {
	if p.Spec.SecurityContext == nil {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	return p.Spec.SecurityContext
}

func ctrSecurity(c *corev1.Container) *corev1.SecurityContext {
	if c.SecurityContext == nil {
		c.SecurityContext = &corev1.SecurityContext{}
	}
	return c.SecurityContext
}

// windowsForbidden sets one field validateWindows rejects.
func (g *gen) windowsForbidden(p *corev1.Pod) {
	c := &p.Spec.Containers[len(p.Spec.Containers)-1]
	switch g.r.IntN(8) {
	case 0:
		podSecurity(p).RunAsUser = new(int64(1000))
	case 1:
		ctrSecurity(c).Privileged = new(false)
	case 2:
		p.Spec.HostPID = true
	case 3:
		ctrSecurity(c).Capabilities = &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
	case 4:
		podSecurity(p).SELinuxOptions = &corev1.SELinuxOptions{Level: "s0:c123,c456"}
	case 5:
		ctrSecurity(c).ReadOnlyRootFilesystem = new(true)
	case 6:
		podSecurity(p).FSGroup = new(int64(2000))
	default:
		ctrSecurity(c).AllowPrivilegeEscalation = new(false)
	}
}

// linuxForbidden sets windowsOptions, which validateLinux rejects.
func (g *gen) linuxForbidden(p *corev1.Pod) {
	opts := &corev1.WindowsSecurityContextOptions{RunAsUserName: new("ContainerUser")}
	if g.chance(0.5) {
		podSecurity(p).WindowsOptions = opts
		return
	}
	ctrSecurity(&p.Spec.Containers[0]).WindowsOptions = opts
}
