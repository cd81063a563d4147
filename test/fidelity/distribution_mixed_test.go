package fidelity

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestNewMixedPlacementCase checks that every mixed case has what the
// placement test claims: a DaemonSet between two Deployments, a Parallel
// StatefulSet of 5 to 15 replicas and a Job of parallelism 5 to 10, and
// that each DaemonSet flavour shows up.
func TestNewMixedPlacementCase(t *testing.T) {
	t.Parallel()
	flavours := map[string]int{}
	for i := range 200 {
		pc := NewMixedPlacementCase(1, i)
		if !reflect.DeepEqual(pc, NewMixedPlacementCase(1, i)) {
			t.Fatalf("%s: generating twice gives different cases", pc.Name)
		}
		kinds := map[string]int{}
		for j, w := range pc.Workloads {
			kinds[kindOf(w)]++
			switch x := w.(type) {
			case *appsv1.DaemonSet:
				flavours[x.Name]++
				if j == 0 || j == len(pc.Workloads)-1 {
					t.Errorf("%s: DaemonSet is workload %d of %d, want one between others", pc.Name, j+1, len(pc.Workloads))
				}
				if len(daemonTargets(x, pc.Nodes)) == 0 {
					t.Errorf("%s: DaemonSet %s targets no node", pc.Name, x.Name)
				}
			case *appsv1.StatefulSet:
				if r := *x.Spec.Replicas; r < 5 || r > 15 {
					t.Errorf("%s: StatefulSet has %d replicas, want 5 to 15", pc.Name, r)
				}
				if x.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
					t.Errorf("%s: StatefulSet has podManagementPolicy %q, want Parallel", pc.Name, x.Spec.PodManagementPolicy)
				}
			case *batchv1.Job:
				if p := *x.Spec.Parallelism; p < 5 || p > 10 {
					t.Errorf("%s: Job has parallelism %d, want 5 to 10", pc.Name, p)
				}
				if x.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
					t.Errorf("%s: Job pods restart %q, want Never", pc.Name, x.Spec.Template.Spec.RestartPolicy)
				}
			}
		}
		if kinds["DaemonSet"] != 1 || kinds["StatefulSet"] != 1 || kinds["Job"] != 1 || kinds["Deployment"] < 2 {
			t.Errorf("%s: workloads by kind %v, want one DaemonSet, StatefulSet and Job and two or more Deployments", pc.Name, kinds)
		}
	}
	for _, f := range []string{"ds-lin", "ds-win", "ds-untainted", "ds-all"} {
		if flavours[f] < 15 {
			t.Errorf("only %d of 200 cases have DaemonSet %s", flavours[f], f)
		}
	}
}

func TestDaemonTargets(t *testing.T) {
	t.Parallel()
	pc := IssueReproduction() // three Linux, three Windows (tainted os=windows:NoSchedule)
	for _, tt := range []struct {
		ds   *appsv1.DaemonSet
		want map[string]int
	}{
		{daemonSet("a", "linux", false, "", ""), map[string]int{"linux": 3}},
		{daemonSet("b", "windows", false, "", ""), map[string]int{"windows": 3}},
		{daemonSet("c", "", false, "", ""), map[string]int{"linux": 3}},
		{daemonSet("d", "", true, "", ""), map[string]int{"linux": 3, "windows": 3}},
	} {
		if got := daemonTargets(tt.ds, pc.Nodes); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DaemonSet %s targets %v, want %v", tt.ds.Name, got, tt.want)
		}
	}
}
