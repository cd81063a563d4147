package simulate

import (
	"math"
	"testing"
)

// TestHugeReplicaCount: replicas is an int32, and its largest value is
// simulated without a result per pod: the cluster fills, and one result
// stands for every later pod, which meets the same full cluster.
func TestHugeReplicaCount(t *testing.T) {
	t.Parallel()
	yaml := `
apiVersion: apps/v1
kind: Deployment
metadata: {name: many}
spec:
  replicas: 2147483647
  template:
    metadata: {labels: {app: many}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck}
spec:
  replicas: 2147483647
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
`
	res := simulateOn(t, nil, yaml, Input{})
	c := res.Count()
	if c.Pods != 2*math.MaxInt32 {
		t.Fatalf("%d pods counted, want 2 x %d", c.Pods, math.MaxInt32)
	}
	if c.Scheduled == 0 || c.Scheduled+c.Pending != c.Pods {
		t.Errorf("scheduled %d + pending %d != %d pods", c.Scheduled, c.Pending, c.Pods)
	}
	if len(res.Pods) > c.Scheduled+2*listedPods {
		t.Errorf("%d results for %d scheduled pods: the pending ones were materialised", len(res.Pods), c.Scheduled)
	}
	for _, w := range res.Workloads {
		if w.Replicas != math.MaxInt32 || w.Pending == 0 || w.PendingMessage == "" {
			t.Errorf("%s: %d replicas, %d pending (%q)", w.Workload, w.Replicas, w.Pending, w.PendingMessage)
		}
	}
}
