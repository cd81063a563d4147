package fidelity

import (
	"bytes"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
)

func caseYAML(t *testing.T, cs *Case) []byte {
	t.Helper()
	docs := cs.documents(true)
	b, err := marshalDocs(docs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGenerateIsReproducible(t *testing.T) {
	t.Parallel()
	a, b := Generate(7, 40), Generate(7, 40)
	for i := range a {
		if !bytes.Equal(caseYAML(t, a[i]), caseYAML(t, b[i])) {
			t.Fatalf("case %d differs between two generations with seed 7", i)
		}
	}
	if one := NewCase(7, 13); !bytes.Equal(caseYAML(t, one), caseYAML(t, a[13])) {
		t.Error("NewCase(7, 13) differs from the 14th case of Generate(7, 40)")
	}
	if bytes.Equal(caseYAML(t, NewCase(8, 13)), caseYAML(t, a[13])) {
		t.Error("seeds 7 and 8 generate the same case 13")
	}
}

// TestGenerateCovers checks that the cases of the default seed exercise
// every feature the fidelity test is meant to compare, each several times.
func TestGenerateCovers(t *testing.T) {
	t.Parallel()
	cases := Generate(1, 300)
	anyNode := func(f func(*corev1.Node) bool) func(*Case) bool {
		return func(c *Case) bool { return slices.ContainsFunc(c.Nodes, f) }
	}
	anyPod := func(f func(*corev1.Pod) bool) func(*Case) bool {
		return func(c *Case) bool { return slices.ContainsFunc(c.Pods, f) }
	}
	anyClass := func(f func(*nodev1.RuntimeClass) bool) func(*Case) bool {
		return func(c *Case) bool { return slices.ContainsFunc(c.RuntimeClasses, f) }
	}
	hasTaint := func(key, value string, effect corev1.TaintEffect) func(*Case) bool {
		return anyNode(func(n *corev1.Node) bool {
			return slices.Contains(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
		})
	}
	build := func(b string) func(*Case) bool {
		return anyNode(func(n *corev1.Node) bool { return n.Labels[labelWindowsBuild] == b })
	}
	operator := func(op corev1.NodeSelectorOperator) func(*Case) bool {
		return anyPod(func(p *corev1.Pod) bool { return slices.Contains(podOperators(p), op) })
	}
	toleration := func(f func(corev1.Toleration) bool) func(*Case) bool {
		return anyPod(func(p *corev1.Pod) bool { return slices.ContainsFunc(p.Spec.Tolerations, f) })
	}
	requests := func(r corev1.ResourceName) func(*Case) bool {
		return anyPod(func(p *corev1.Pod) bool {
			_, ok := p.Spec.Containers[0].Resources.Requests[r]
			return ok
		})
	}
	checks := []struct {
		name string
		has  func(*Case) bool
	}{
		{"mixed Linux and Windows nodes", func(c *Case) bool { return len(osNodes(c, "linux")) > 0 && len(osNodes(c, "windows")) > 0 }},
		{"Windows-only cluster", func(c *Case) bool { return len(osNodes(c, "linux")) == 0 }},
		{"build 10.0.17763", build("10.0.17763")},
		{"build 10.0.20348", build("10.0.20348")},
		{"build 10.0.26100", build("10.0.26100")},
		{"untainted Windows node", anyNode(func(n *corev1.Node) bool {
			return n.Labels[corev1.LabelOSStable] == "windows" && len(n.Spec.Taints) == 0
		})},
		{"os=windows:NoSchedule", hasTaint("os", "windows", corev1.TaintEffectNoSchedule)},
		{"node.kubernetes.io/os=windows:NoSchedule", hasTaint("node.kubernetes.io/os", "windows", corev1.TaintEffectNoSchedule)},
		{"OS=Windows:NoSchedule", hasTaint("OS", "Windows", corev1.TaintEffectNoSchedule)},
		{"os=windows:PreferNoSchedule", hasTaint("os", "windows", corev1.TaintEffectPreferNoSchedule)},
		{"os=windows:NoExecute", hasTaint("os", "windows", corev1.TaintEffectNoExecute)},
		{"unschedulable node", anyNode(func(n *corev1.Node) bool { return n.Spec.Unschedulable })},
		{"node without ephemeral-storage", anyNode(func(n *corev1.Node) bool { _, ok := n.Status.Allocatable[corev1.ResourceEphemeralStorage]; return !ok })},
		{"nodeSelector kubernetes.io/os", anyPod(func(p *corev1.Pod) bool { return p.Spec.NodeSelector[corev1.LabelOSStable] != "" })},
		{"nodeSelector windows-build", anyPod(func(p *corev1.Pod) bool { return p.Spec.NodeSelector[labelWindowsBuild] != "" })},
		{"nodeSelector custom label", anyPod(func(p *corev1.Pod) bool { return p.Spec.NodeSelector[labelDisk] != "" })},
		{"affinity In", operator(corev1.NodeSelectorOpIn)},
		{"affinity NotIn", operator(corev1.NodeSelectorOpNotIn)},
		{"affinity Exists", operator(corev1.NodeSelectorOpExists)},
		{"affinity DoesNotExist", operator(corev1.NodeSelectorOpDoesNotExist)},
		{"affinity Gt", operator(corev1.NodeSelectorOpGt)},
		{"affinity Lt", operator(corev1.NodeSelectorOpLt)},
		{"affinity matchFields", anyPod(func(p *corev1.Pod) bool { return len(podFields(p)) > 0 })},
		{"toleration with a mis-cased key", toleration(func(t corev1.Toleration) bool { return t.Key == "OS" })},
		{"toleration with a mis-cased value", toleration(func(t corev1.Toleration) bool { return t.Value == "Windows" })},
		{"toleration operator Exists", toleration(func(t corev1.Toleration) bool { return t.Operator == corev1.TolerationOpExists && t.Key != "" })},
		{"toleration of every taint", toleration(func(t corev1.Toleration) bool { return t.Operator == corev1.TolerationOpExists && t.Key == "" })},
		{"RuntimeClass with scheduling", anyClass(func(rc *nodev1.RuntimeClass) bool { return rc.Scheduling != nil && len(rc.Scheduling.Tolerations) > 0 })},
		{"RuntimeClass with overhead", anyClass(func(rc *nodev1.RuntimeClass) bool { return rc.Overhead != nil })},
		{"pod using a RuntimeClass", anyPod(func(p *corev1.Pod) bool { return p.Spec.RuntimeClassName != nil })},
		{"pod naming a missing RuntimeClass", func(c *Case) bool { return missingClass(c) }},
		{"cpu request", requests(corev1.ResourceCPU)},
		{"memory request", requests(corev1.ResourceMemory)},
		{"ephemeral-storage request", requests(corev1.ResourceEphemeralStorage)},
		{"limits only", anyPod(func(p *corev1.Pod) bool {
			r := p.Spec.Containers[0].Resources
			return r.Requests == nil && r.Limits != nil
		})},
		{"init container", anyPod(func(p *corev1.Pod) bool {
			return slices.ContainsFunc(p.Spec.InitContainers, func(c corev1.Container) bool { return c.RestartPolicy == nil })
		})},
		{"sidecar", anyPod(func(p *corev1.Pod) bool {
			return slices.ContainsFunc(p.Spec.InitContainers, func(c corev1.Container) bool { return c.RestartPolicy != nil })
		})},
		{"host port", anyPod(func(p *corev1.Pod) bool { return len(p.Spec.Containers[0].Ports) > 0 })},
		{"spec.os.name windows", anyPod(func(p *corev1.Pod) bool { return p.Spec.OS != nil && p.Spec.OS.Name == corev1.Windows })},
		{"spec.os.name linux", anyPod(func(p *corev1.Pod) bool { return p.Spec.OS != nil && p.Spec.OS.Name == corev1.Linux })},
		{"windows pod with a forbidden field", anyPod(func(p *corev1.Pod) bool {
			return p.Spec.OS != nil && p.Spec.OS.Name == corev1.Windows && p.Spec.HostPID
		})},
		{"linux pod with windowsOptions", anyPod(func(p *corev1.Pod) bool {
			return p.Spec.OS != nil && p.Spec.OS.Name == corev1.Linux && p.Spec.SecurityContext != nil && p.Spec.SecurityContext.WindowsOptions != nil
		})},
	}
	for _, c := range checks {
		n := 0
		for _, cs := range cases {
			if c.has(cs) {
				n++
			}
		}
		if n < 3 {
			t.Errorf("%s: in %d of %d cases, want at least 3", c.name, n, len(cases))
		}
	}
}

func osNodes(c *Case, os string) []*corev1.Node {
	var out []*corev1.Node
	for _, n := range c.Nodes {
		if n.Labels[corev1.LabelOSStable] == os {
			out = append(out, n)
		}
	}
	return out
}

func podOperators(p *corev1.Pod) []corev1.NodeSelectorOperator {
	var ops []corev1.NodeSelectorOperator
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, r := range term.MatchExpressions {
				ops = append(ops, r.Operator)
			}
		}
	}
	return ops
}

func podFields(p *corev1.Pod) []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			out = append(out, term.MatchFields...)
		}
	}
	return out
}

func missingClass(c *Case) bool {
	for _, p := range c.Pods {
		if p.Spec.RuntimeClassName == nil {
			continue
		}
		if !slices.ContainsFunc(c.RuntimeClasses, func(rc *nodev1.RuntimeClass) bool { return rc.Name == *p.Spec.RuntimeClassName }) {
			return true
		}
	}
	return false
}
