package fidelity

import (
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestNewPlacementCase checks that the generated placement cases are what
// the placement test claims to cover, and that a case regenerates alike.
func TestNewPlacementCase(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for i := range 200 {
		pc := NewPlacementCase(1, i)
		if !reflect.DeepEqual(pc, NewPlacementCase(1, i)) {
			t.Fatalf("%s: generating twice gives different cases", pc.Name)
		}
		if n := len(pc.Nodes); n < 3 || n > 12 {
			t.Errorf("%s: %d nodes, want 3 to 12", pc.Name, n)
		}
		oses, zones, sizes := map[string]bool{}, map[string]bool{}, map[string]bool{}
		var names []string
		for _, n := range pc.Nodes {
			oses[n.Labels[corev1.LabelOSStable]] = true
			zones[n.Labels[labelZone]] = true
			sizes[n.Labels[labelInstanceType]] = true
			names = append(names, n.Name)
			for _, tn := range n.Spec.Taints {
				if tn.Effect == corev1.TaintEffectPreferNoSchedule {
					seen["PreferNoSchedule taint"]++
				}
			}
		}
		if len(oses) != 2 || len(zones) != 2 {
			t.Errorf("%s: OSes %v and zones %v, want both of each", pc.Name, oses, zones)
		}
		if len(sizes) < 2 && len(pc.Nodes) > 3 {
			seen["one size"]++
		}
		if !slices.IsSorted(names) {
			t.Errorf("%s: nodes %v are not in name order", pc.Name, names)
		}
		if len(pc.Workloads) < 2 || len(pc.Workloads) > 4 {
			t.Errorf("%s: %d Deployments, want 2 to 4", pc.Name, len(pc.Workloads))
		}
		if len(pc.Existing) > 0 {
			seen["existing pods"]++
		}
		for _, p := range pc.Existing {
			if p.Spec.NodeName == "" {
				t.Errorf("%s: existing pod %s names no node", pc.Name, p.Name)
			}
		}
		for _, w := range pc.Workloads {
			d := w.(*appsv1.Deployment)
			if r := *d.Spec.Replicas; r < 10 || r > 50 {
				t.Errorf("%s: Deployment %s has %d replicas, want 10 to 50", pc.Name, d.Name, r)
			}
			spec := d.Spec.Template.Spec
			if len(spec.TopologySpreadConstraints) > 0 {
				seen["own spread constraints"]++
				for _, c := range spec.TopologySpreadConstraints {
					if c.WhenUnsatisfiable != corev1.ScheduleAnyway {
						t.Errorf("%s: Deployment %s has a %s constraint", pc.Name, d.Name, c.WhenUnsatisfiable)
					}
				}
			}
			if a := spec.Affinity; a != nil {
				if a.NodeAffinity != nil {
					seen["preferred node affinity"]++
				}
				if a.PodAffinity != nil {
					seen["preferred pod affinity"]++
				}
				if a.PodAntiAffinity != nil {
					seen["preferred pod anti-affinity"]++
				}
			}
			seen["Deployment "+spec.NodeSelector[corev1.LabelOSStable]]++
		}
	}
	// Every feature shows up in a fair share of cases; "one size" only
	// counts cases that drew the same size for every node by chance.
	for _, what := range []string{"PreferNoSchedule taint", "existing pods", "own spread constraints", "preferred node affinity",
		"preferred pod affinity", "preferred pod anti-affinity", "Deployment linux", "Deployment windows"} {
		if seen[what] < 20 {
			t.Errorf("only %d of 200 cases have %s", seen[what], what)
		}
	}
	t.Logf("feature counts over 200 cases: %v", seen)
}

func TestIssueReproduction(t *testing.T) {
	t.Parallel()
	pc := IssueReproduction()
	count := map[string]int{}
	for _, n := range pc.Nodes {
		count[n.Labels[corev1.LabelOSStable]]++
		count[n.Labels[labelZone]]++
		count[n.Labels[labelInstanceType]]++
	}
	want := map[string]int{"linux": 3, "windows": 3, "z1": 3, "z2": 3, "std-4": 3, "std-8": 3}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("nodes by OS, zone and size: %v, want %v", count, want)
	}
	var replicas []int32
	for _, w := range pc.Workloads {
		replicas = append(replicas, *w.(*appsv1.Deployment).Spec.Replicas)
	}
	if !slices.Equal(replicas, []int32{30, 20}) {
		t.Errorf("replicas %v, want [30 20]", replicas)
	}
}
