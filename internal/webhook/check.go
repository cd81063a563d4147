package webhook

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// objectFile names the request's object in decoding errors.
const objectFile = "request.object"

// decodeObject reads the JSON object of a request. JSON is YAML, so the
// manifest decoder lint uses reads it as it reads a file.
func decodeObject(field string, raw []byte, namespace string) (*manifest.Object, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("%s is missing", field)
	}
	objs, errs := manifest.Decode(manifest.Document{File: field, Line: 1, Data: raw})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %s", field, errs[0].Msg)
	}
	if len(objs) != 1 || objs[0].Typed == nil || objs[0].Workload() == nil {
		return nil, fmt.Errorf("%s is not a Pod or a workload with a pod template", field)
	}
	o := objs[0]
	if o.Namespace == "" {
		o.Namespace = namespace // a Pod created by name has it only in the request
	}
	return o, nil
}

// check runs the rules over one object and returns its active findings.
// A workload naming a RuntimeClass the config does not list is checked
// without the class's scheduling, so its placement findings are guesses:
// they are lowered to warnings and not fixed. Pods are exempt: the
// RuntimeClass admission plugin merged the class into them already.
func (p *policy) check(o *manifest.Object) []rule.Finding {
	res := engine.Check([]*manifest.Object{o}, p.engine)
	unknownRC := ""
	if w := o.Workload(); w != nil && o.Kind != "Pod" && w.Spec.RuntimeClassName != nil {
		if name := *w.Spec.RuntimeClassName; name != "" && !p.runtimeClasses[name] {
			unknownRC = name
		}
	}
	out := res.Findings[:0]
	for _, f := range res.Findings {
		if f.Suppressed {
			continue
		}
		if r := p.rules[f.Rule]; unknownRC != "" && r != nil && r.Category == rule.Placement {
			f.Severity = min(f.Severity, rule.Warning)
			f.Fix = nil
			f.Hint = fmt.Sprintf("RuntimeClass %q is not in the webhook config's runtimeClasses, so its scheduling was not taken into account", unknownRC)
		}
		out = append(out, f)
	}
	return out
}

// findingKey identifies a finding across the old and new object of an
// UPDATE.
func findingKey(f rule.Finding) string { return f.Rule + "\x00" + f.Path }

// preexisting returns the keys of the findings the old object of an UPDATE
// already had, or nil for a CREATE.
func (p *policy) preexisting(old *manifest.Object) map[string]bool {
	if old == nil {
		return nil
	}
	keys := map[string]bool{}
	for _, f := range p.check(old) {
		keys[findingKey(f)] = true
	}
	return keys
}

// controlledPod reports whether o is a pod whose controller is a kind the
// webhook checks the template of.
func controlledPod(o *manifest.Object) bool {
	pod, ok := o.Typed.(*corev1.Pod)
	if !ok {
		return false
	}
	for _, ref := range pod.OwnerReferences {
		if ref.Controller == nil || !*ref.Controller {
			continue
		}
		switch ref.Kind {
		case "ReplicaSet", "StatefulSet", "DaemonSet":
			return ref.APIVersion == "apps/v1"
		case "Job":
			return ref.APIVersion == "batch/v1"
		}
	}
	return false
}
