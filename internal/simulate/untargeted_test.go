package simulate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A DaemonSet with no eligible node says why, per pool: "0/0 scheduled"
// alone gives no event to grep.
func TestDaemonSetWithoutEligibleNodeSaysWhy(t *testing.T) {
	t.Parallel()
	res := simulateOn(t, nil, daemonSetYAML("kube-system", "agent", `
nodeSelector: {kubernetes.io/os: windows}
containers: [{name: c, image: registry.k8s.io/pause:3.10}]
`), Input{})
	var got []string
	for _, w := range res.Workloads {
		if w.Workload == "DaemonSet/kube-system/agent" {
			got = w.Explanation
		}
	}
	want := []string{
		"no pod on pool linux: the pod's nodeSelector kubernetes.io/os=windows, but the nodes have kubernetes.io/os=linux",
		"no pod on pool windows: taint os=windows:NoSchedule is not tolerated",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("explanation (-want +got):\n%s", diff)
	}
}

// "Insufficient cpu" says what bound pods already request.
func TestInsufficientShowsRequested(t *testing.T) {
	t.Parallel()
	res := simulateOn(t, nil, deploymentYAML("default", "web", 3, `
nodeSelector: {kubernetes.io/os: windows}
tolerations: [{key: os, operator: Exists}]
containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022, resources: {requests: {cpu: "2"}}}]
`), Input{})
	for _, w := range res.Workloads {
		for _, e := range w.Explanation {
			if strings.Contains(e, "Insufficient cpu") && strings.Contains(e, "of which cpu 2 is already requested by other pods") {
				return
			}
		}
	}
	t.Errorf("no explanation names what is already requested: %+v", res.Workloads)
}
