package target

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// osKeys are the node labels that say which OS and build a node runs:
// the kubelet's, and those managed platforms set on every node (AKS's
// OS SKU, GKE's Windows version).
var osKeys = map[string]bool{cluster.LabelOS: true, cluster.LabelOSBeta: true, cluster.LabelWindowsBuild: true,
	winsupport.LabelAKSOSSKU: true, winsupport.LabelGKEWindowsVersion: true}

// schedulable works out which OSes and builds the pod's required scheduling
// constraints admit, by matching them with the scheduler's own helper
// against one synthetic node per OS and build. Only the OS and build keys
// are kept: other labels (agentpool, instance type) say nothing about the
// OS and cannot be known offline.
func schedulable(f *Facts, s *corev1.PodSpec, in Input) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: onlyOSKeys(f.NodeSelector), Affinity: osAffinity(s.Affinity)}}
	req := nodeaffinity.GetRequiredNodeAffinity(pod)
	linux := map[string]string{cluster.LabelOS: "linux", cluster.LabelOSBeta: "linux"}
	for _, cloud := range append([]map[string]string{nil}, in.Model.CloudLinuxLabels()...) {
		if ok, _ := req.Match(syntheticNode(linux, cloud)); ok {
			f.Schedulable = append(f.Schedulable, Linux)
			break
		}
	}
	builds := candidateBuilds(in)
	var allowed []string
	for _, b := range builds {
		win := map[string]string{cluster.LabelOS: "windows", cluster.LabelOSBeta: "windows", cluster.LabelWindowsBuild: b}
		if ok, _ := req.Match(syntheticNode(win, in.Model.CloudWindowsLabels(b))); ok {
			allowed = append(allowed, b)
		}
	}
	if len(allowed) > 0 {
		f.Schedulable = append(f.Schedulable, Windows)
	}
	if len(allowed) < len(builds) {
		f.Builds = allowed
	}
	f.Pinned = len(f.Schedulable) == 1
	if len(f.Schedulable) == 1 {
		sig := Signal{OS: f.Schedulable[0]}
		switch {
		case hasOSKey(s.NodeSelector):
			sig.Source, sig.Path = FromNodeSelector, in.SpecPath.Child("nodeSelector")
		case hasOSKey(f.NodeSelector):
			sig.Source, sig.Path, sig.Detail = FromRuntimeClass, in.SpecPath.Child("runtimeClassName"), f.RuntimeClassName
		default:
			sig.Source, sig.Path = FromNodeAffinity, in.SpecPath.Child("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
		}
		f.Signals = append(f.Signals, sig)
	}
}

// syntheticNode is a node labelled with base and the platform's labels.
func syntheticNode(base, cloud map[string]string) *corev1.Node {
	labels := make(map[string]string, len(base)+len(cloud))
	for k, v := range base {
		labels[k] = v
	}
	for k, v := range cloud {
		labels[k] = v
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
}

// candidateBuilds are the Windows builds a Windows node could run: the
// cluster's, plus every LTSC build the model knows, so a pin to a build the
// cluster lacks still counts as a pin.
func candidateBuilds(in Input) []string {
	var out []string
	seen := map[string]bool{}
	add := func(b string) {
		if b != "" && !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	if in.Cluster != nil {
		for _, b := range in.Cluster.WindowsBuilds() {
			add(b)
		}
	}
	for _, b := range in.Model.Builds() {
		add(b.Build)
	}
	return out
}

func hasOSKey(sel map[string]string) bool {
	for k := range sel {
		if osKeys[k] {
			return true
		}
	}
	return false
}

func onlyOSKeys(sel map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range sel {
		if osKeys[k] {
			out[k] = v
		}
	}
	return out
}

// osAffinity keeps the required node affinity's OS and build expressions.
// A term left empty would match nothing, so it becomes "any OS".
func osAffinity(a *corev1.Affinity) *corev1.Affinity {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	var terms []corev1.NodeSelectorTerm
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var exprs []corev1.NodeSelectorRequirement
		for _, e := range t.MatchExpressions {
			if osKeys[e.Key] {
				exprs = append(exprs, e)
			}
		}
		if len(exprs) == 0 {
			exprs = []corev1.NodeSelectorRequirement{{Key: cluster.LabelOS, Operator: corev1.NodeSelectorOpExists}}
		}
		terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: exprs})
	}
	if len(terms) == 0 {
		return nil
	}
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
}
