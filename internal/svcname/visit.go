package svcname

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/winsupport"
)

// The words Visit and the rules' command visitors say where a string is;
// internal/policy builds the same words in CEL from these templates.
const (
	// WhereContainer names a container.
	WhereContainer = "container %q"
	// WhereCommand, WhereArgs: a command or args item of the container.
	WhereCommand = "the command of %s"
	WhereArgs    = "the args of %s"
	// WhereEnv: an env value, by the variable's name, of the container.
	WhereEnv = "env %s of %s"
	// WhereProbe: an exec probe (livenessProbe, ...) of the container.
	WhereProbe = "the %s of %s"
	// WhereHook: an exec lifecycle hook (postStart, preStop) of the container.
	WhereHook = "the %s hook of %s"
)

// Visitor is called with a string of a pod spec, where it is and what
// it is for people ("env URL of container \"web\"").
type Visitor func(path *field.Path, where, value string)

// visitList calls fn with each item of a list of strings.
func visitList(at *field.Path, where string, items []string, fn Visitor) {
	for i, s := range items {
		fn(at.Index(i), where, s)
	}
}

// Visit calls fn with every string of the pod spec's
// containers where a host name of a connection may be written.
func Visit(spec *corev1.PodSpec, specPath *field.Path, fn Visitor) {
	winsupport.VisitContainers(spec, specPath, func(c *corev1.Container, cp *field.Path) {
		in := fmt.Sprintf(WhereContainer, c.Name)
		visitList(cp.Child("command"), fmt.Sprintf(WhereCommand, in), c.Command, fn)
		visitList(cp.Child("args"), fmt.Sprintf(WhereArgs, in), c.Args, fn)
		for i, e := range c.Env {
			if e.Value != "" {
				fn(cp.Child("env").Index(i).Child("value"), fmt.Sprintf(WhereEnv, e.Name, in), e.Value)
			}
		}
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
			if pr.probe == nil {
				continue
			}
			at, where := cp.Child(pr.name), fmt.Sprintf(WhereProbe, pr.name, in)
			visitExec(pr.probe.Exec, at, where, fn)
		}
		if c.Lifecycle != nil {
			for _, h := range []struct {
				name    string
				handler *corev1.LifecycleHandler
			}{{"postStart", c.Lifecycle.PostStart}, {"preStop", c.Lifecycle.PreStop}} {
				if h.handler != nil {
					visitExec(h.handler.Exec, cp.Child("lifecycle", h.name), fmt.Sprintf(WhereHook, h.name, in), fn)
				}
			}
		}
	})
}

// visitExec visits an exec handler's command. httpGet and tcpSocket hosts
// are left out: the kubelet connects to them from the node, with the
// node's resolver, not the pod's.
func visitExec(exec *corev1.ExecAction, at *field.Path, where string, fn Visitor) {
	if exec != nil {
		visitList(at.Child("exec", "command"), where, exec.Command, fn)
	}
}

// ConfigMaps names the ConfigMaps a pod spec reads, where Service names
// hide as much as in its env, sorted and
// without repeats: volumes (projected sources too), envFrom and
// configMapKeyRef of every container.
func ConfigMaps(spec *corev1.PodSpec) []string {
	seen := map[string]bool{}
	add := func(name string) {
		if name != "" {
			seen[name] = true
		}
	}
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil {
			add(v.ConfigMap.Name)
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.ConfigMap != nil {
					add(src.ConfigMap.Name)
				}
			}
		}
	}
	containers := append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...)
	for _, c := range containers {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil {
				add(e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				add(e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
