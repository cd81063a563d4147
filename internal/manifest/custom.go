package manifest

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// customTemplate is a pod template found in a custom resource: operators'
// kinds (Argo Rollouts, and any kind with a PodSpec-shaped subtree) carry
// the Windows nodeSelectors, tolerations and images of the pods they
// create.
type customTemplate struct {
	meta     metav1.ObjectMeta // the custom resource's own
	template corev1.PodTemplateSpec
	specPath *field.Path // where the PodSpec sits in the object
}

// knownTemplates are the custom kinds whose pod template sits at a known
// path, a corev1.PodTemplateSpec.
var knownTemplates = map[groupKind][]string{
	// argoproj/argo-rollouts pkg/apis/rollouts/v1alpha1 RolloutSpec.Template
	{"argoproj.io", "Rollout"}: {"spec", "template"},
}

// maxTemplateDepth bounds the search for a PodSpec-shaped subtree under
// spec: deep enough for spec.x.template.spec, cheap on large CRs.
const maxTemplateDepth = 5

// findCustomTemplate reads the pod template of a custom resource: at the
// known path of its kind, else the first mapping under spec (breadth
// first) that holds a list of containers with names and images. nil when
// there is none or it does not decode as a PodSpec.
func findCustomTemplate(file string, root *Node, gk groupKind) *customTemplate {
	var path []string
	if p, ok := knownTemplates[gk]; ok {
		path = p
	} else {
		path = podSpecPath(root.Get("spec"), []string{"spec"}, 0)
		if path == nil {
			return nil
		}
		// A PodSpec under a template key is a PodTemplateSpec's.
		if n := len(path); n >= 2 && path[n-1] == "spec" && path[n-2] == "template" {
			path = path[:n-1]
		} else {
			path = append(path, "") // a bare PodSpec
		}
	}
	ct := &customTemplate{}
	if m := root.Get("metadata"); m != nil && decodeInto(file, m, &ct.meta) != nil {
		return nil
	}
	bare := path[len(path)-1] == ""
	if bare {
		path = path[:len(path)-1]
	}
	n := root
	for _, k := range path {
		if n = n.Get(k); n == nil {
			return nil
		}
	}
	fp := field.NewPath(path[0], path[1:]...)
	if bare {
		if decodeInto(file, n, &ct.template.Spec) != nil {
			return nil
		}
		ct.specPath = fp
	} else {
		if decodeInto(file, n, &ct.template) != nil {
			return nil
		}
		ct.specPath = fp.Child("spec")
	}
	if len(ct.template.Spec.Containers) == 0 {
		return nil
	}
	return ct
}

// podSpecPath is the path of the first mapping under n, at most
// maxTemplateDepth deep, with a containers list whose every item names a
// container and its image.
func podSpecPath(n *Node, at []string, depth int) []string {
	if n == nil || n.Kind != MappingNode || depth > maxTemplateDepth {
		return nil
	}
	if containersList(n.Get("containers")) {
		return at
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		child := n.Content[i+1]
		if child.Kind != MappingNode {
			continue
		}
		if p := podSpecPath(child, append(append([]string(nil), at...), n.Content[i].Value), depth+1); p != nil {
			return p
		}
	}
	return nil
}

func containersList(n *Node) bool {
	if n == nil || n.Kind != SequenceNode || len(n.Content) == 0 {
		return false
	}
	for _, c := range n.Content {
		if c.Kind != MappingNode || c.String("name") == "" || c.String("image") == "" {
			return false
		}
	}
	return true
}
