package simulate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const workloadKinds = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  template: {spec: {containers: [{name: c, image: nginx}]}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  template: {spec: {containers: [{name: c, image: postgres}]}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  template: {spec: {containers: [{name: c, image: nginx}]}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec:
  replicas: 0
  template: {spec: {containers: [{name: c, image: nginx}]}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  parallelism: 4
  completions: 2
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: solo}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: not-a-workload}
`

func TestWorkloadsBecomePods(t *testing.T) {
	t.Parallel()
	res := simulateOn(t, nil, workloadKinds, Input{})
	var got []string
	for _, p := range res.Pods {
		got = append(got, p.Workload+" "+p.Pod)
	}
	want := []string{
		"Deployment/shop/web web-0", "Deployment/shop/web web-1", "Deployment/shop/web web-2",
		"StatefulSet/default/db db-0", "StatefulSet/default/db db-1",
		"ReplicaSet/default/rs rs-0",
		"Job/default/job job-0", "Job/default/job job-1",
		"CronJob/default/nightly nightly-0",
		"Pod/default/solo solo",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if len(res.Workloads) != 7 {
		t.Errorf("got %d workloads, want 7 (the ConfigMap creates no pods)", len(res.Workloads))
	}
}

func TestReplicaOverrides(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		overrides map[string]int32
		web, db   int
		err       string
	}{
		{"none", nil, 3, 2, ""},
		{"Kind/name, any case", map[string]int32{"deployment/web": 5}, 5, 2, ""},
		{"Kind/namespace/name", map[string]int32{"Deployment/shop/web": 1, "StatefulSet/default/db": 0}, 1, 0, ""},
		{"unknown", map[string]int32{"Deployment/nope": 1}, 0, 0, "no such workload"},
		{"wrong namespace", map[string]int32{"Deployment/default/web": 1}, 0, 0, "no such workload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := referenceNodes()
			_, err := Run(t.Context(), Input{Nodes: c.nodes, Objects: objects(t, workloadKinds), Replicas: tt.overrides})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			res, err := Run(t.Context(), Input{Nodes: c.nodes, Objects: objects(t, workloadKinds), Replicas: tt.overrides})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(podsOf(res, "Deployment/shop/web")); n != tt.web {
				t.Errorf("web has %d pods, want %d", n, tt.web)
			}
			if n := len(podsOf(res, "StatefulSet/default/db")); n != tt.db {
				t.Errorf("db has %d pods, want %d", n, tt.db)
			}
		})
	}
}

func TestDaemonSetReplicasCannotBeSet(t *testing.T) {
	t.Parallel()
	yaml := `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  template: {spec: {containers: [{name: c, image: nginx}]}}
`
	c := referenceNodes()
	_, err := Run(t.Context(), Input{Nodes: c.nodes, Objects: objects(t, yaml), Replicas: map[string]int32{"DaemonSet/agent": 2}})
	if err == nil || !strings.Contains(err.Error(), "one pod per node") {
		t.Errorf("err = %v, want a refusal", err)
	}
}
