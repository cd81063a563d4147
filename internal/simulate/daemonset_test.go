package simulate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestDaemonSetExpansion(t *testing.T) {
	t.Parallel()
	ds := func(spec string) string {
		return daemonSetYAML("kube-system", "agent", spec+`
containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m}}}]`)
	}
	tests := []struct {
		name  string
		spec  string
		nodes []string
	}{
		{"untolerated Windows taint keeps it to Linux", "nodeSelector: {}", []string{"linux-0", "linux-1", "linux-2"}},
		{"tolerate everything", "tolerations: [{operator: Exists}]", []string{"linux-0", "linux-1", "linux-2", "windows-0", "windows-1"}},
		{"Windows only", `nodeSelector: {kubernetes.io/os: windows}
tolerations: [{key: os, operator: Exists}]`, []string{"windows-0", "windows-1"}},
		{"selected but not tolerated: no pods at all", "nodeSelector: {kubernetes.io/os: windows}", nil},
		{"required node affinity", `affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: NotIn, values: [linux-1]}]`, []string{"linux-0", "linux-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := simulateOn(t, nil, ds(tt.spec), Input{})
			pods := podsOf(res, "DaemonSet/kube-system/agent")
			var got []string
			for _, p := range pods {
				if p.Pod != "agent-"+p.Node {
					t.Errorf("pod %s is on %s; DaemonSet pods are named after their node", p.Pod, p.Node)
				}
				got = append(got, p.Node)
			}
			if diff := cmp.Diff(tt.nodes, got); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
}

// A RuntimeClass's scheduling is merged into the pods after the DaemonSet
// controller chose their nodes, so pods made for nodes the class excludes
// stay pending.
func TestDaemonSetWithRuntimeClass(t *testing.T) {
	t.Parallel()
	yaml := `
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: windows-2022}
handler: runhcs-wcow-process
scheduling:
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: exporter, namespace: monitoring}
spec:
  template:
    spec:
      runtimeClassName: windows-2022
      containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]
`
	res := simulateOn(t, nil, yaml, Input{})
	pods := podsOf(res, "DaemonSet/monitoring/exporter")
	if len(pods) != 3 {
		t.Fatalf("got %d pods, want one per Linux node (the controller does not see the class's tolerations)", len(pods))
	}
	want := "0/5 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 4 node(s) didn't satisfy plugin(s) [NodeAffinity]. no new claims to deallocate, preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling."
	for _, p := range pods {
		if !p.Pending || p.Message != want {
			t.Errorf("%s: pending=%v message %q\nwant %q", p.Pod, p.Pending, p.Message, want)
		}
	}
}

func TestDaemonTolerations(t *testing.T) {
	t.Parallel()
	s := &corev1.PodSpec{HostNetwork: true, Tolerations: []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64)},
		{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule},
	}}
	addDaemonTolerations(s)
	var got []string
	for _, t := range s.Tolerations {
		got = append(got, t.Key+":"+string(t.Effect))
	}
	want := []string{
		"node.kubernetes.io/not-ready:NoExecute", "os:NoSchedule", "node.kubernetes.io/unreachable:NoExecute",
		"node.kubernetes.io/disk-pressure:NoSchedule", "node.kubernetes.io/memory-pressure:NoSchedule",
		"node.kubernetes.io/pid-pressure:NoSchedule", "node.kubernetes.io/unschedulable:NoSchedule",
		"node.kubernetes.io/network-unavailable:NoSchedule",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tolerations (-want +got):\n%s", diff)
	}
	// The controller replaces a matching toleration with its own.
	if s.Tolerations[0].TolerationSeconds != nil {
		t.Errorf("the not-ready toleration keeps its tolerationSeconds; the controller's replaces it")
	}
}
