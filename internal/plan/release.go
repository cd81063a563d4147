package plan

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/winsupport"
)

// KubernetesVersion is --kubernetes-version 1.35.
func KubernetesVersion(arg string) (Change, error) {
	v, err := winsupport.ParseVersion(arg)
	if err != nil {
		return Change{}, fmt.Errorf("--kubernetes-version %q: %v: want a minor release such as 1.35", arg, err)
	}
	ch := Change{Kind: "kubernetes-version", Target: v.String()}
	ch.apply = func(s *state) (string, error) {
		detail := fmt.Sprintf("Kubernetes %s -> %s", s.model.V, v)
		s.model = winsupport.ForVersion(v)
		s.cluster.KubernetesVersion = v.String()
		return detail, nil
	}
	return ch, nil
}

// Containerd is --containerd 2.1.
func Containerd(arg string) (Change, error) {
	major, _, _ := strings.Cut(strings.TrimPrefix(arg, "v"), ".")
	if major != "1" && major != "2" {
		return Change{}, fmt.Errorf("--containerd %q: want a containerd release 1.x or 2.x, e.g. 2.1 or 1.7.27", arg)
	}
	ch := Change{Kind: "containerd", Target: arg, Detail: "containerd " + arg + " on the Windows nodes"}
	ch.apply = func(s *state) (string, error) {
		detail := fmt.Sprintf("containerd %s -> %s on the Windows nodes", orNone(s.containerd), arg)
		s.containerd = arg
		return detail, nil
	}
	return ch, nil
}

// RuntimeClass is --runtime-class NAME:handler=H[,nodeSelector=K=V][,toleration=K=V:EFFECT].
func RuntimeClass(arg string) (Change, error) {
	bad := malformed("--runtime-class", arg, "NAME:handler=HANDLER[,nodeSelector=KEY=VALUE][,toleration=KEY=VALUE:EFFECT], e.g. windows-2025:handler=runhcs-wcow-process,nodeSelector=node.kubernetes.io/windows-build=10.0.26100")
	name, spec, ok := strings.Cut(arg, ":")
	if !ok || name == "" || spec == "" {
		return bad("no name or no field")
	}
	var handler string
	sched := &nodev1.Scheduling{}
	for _, kv := range strings.Split(spec, ",") {
		f, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return bad(fmt.Sprintf("%q is not FIELD=VALUE", kv))
		}
		switch f {
		case "handler":
			handler = v
		case "nodeSelector":
			k, val, ok := strings.Cut(v, "=")
			if !ok || k == "" {
				return bad(fmt.Sprintf("nodeSelector %q is not KEY=VALUE", v))
			}
			if sched.NodeSelector == nil {
				sched.NodeSelector = map[string]string{}
			}
			sched.NodeSelector[k] = val
		case "toleration":
			taint, ok := parseTaintSpec(v)
			if !ok {
				return bad(fmt.Sprintf("toleration %q is not KEY=VALUE:EFFECT", v))
			}
			sched.Tolerations = append(sched.Tolerations, corev1.Toleration{Key: taint.Key, Operator: corev1.TolerationOpEqual, Value: taint.Value, Effect: taint.Effect})
		default:
			return bad(fmt.Sprintf("unknown field %q", f))
		}
	}
	if handler == "" {
		return bad("no handler")
	}
	rc := &nodev1.RuntimeClass{Handler: handler}
	rc.APIVersion, rc.Kind, rc.Name = "node.k8s.io/v1", "RuntimeClass", name
	if sched.NodeSelector != nil || sched.Tolerations != nil {
		rc.Scheduling = sched
	}
	ch := Change{Kind: "runtime-class", Target: name, Detail: "handler " + handler}
	if sched.NodeSelector != nil {
		ch.Detail += ", nodeSelector " + labelList(sched.NodeSelector, " ")
	}
	ch.apply = func(s *state) (string, error) {
		s.runtimeClasses[name] = rc
		return "", nil
	}
	return ch, nil
}

// parseTaintSpec reads KEY[=VALUE]:EFFECT.
func parseTaintSpec(v string) (corev1.Taint, bool) {
	kv, effect, ok := strings.Cut(v, ":")
	k, val, _ := strings.Cut(kv, "=")
	t := corev1.Taint{Key: k, Value: val, Effect: corev1.TaintEffect(effect)}
	switch t.Effect {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return t, ok && k != ""
	}
	return t, false
}
