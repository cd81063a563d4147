package simulate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExplanations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		spec string
		want []string
	}{
		{"selector and taint", `
      nodeSelector: {kubernetes.io/os: windows}`, []string{
			"pool linux (3 nodes): the pod's nodeSelector kubernetes.io/os=windows, but the nodes have kubernetes.io/os=linux",
			"pool windows (2 nodes): taint os=windows:NoSchedule is not tolerated; to run there, add the toleration {key: os, operator: Equal, value: windows, effect: NoSchedule}",
		}},
		{"resources", `
      tolerations: [{operator: Exists}]
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "5", memory: 1Gi}}}]`, []string{
			"pool linux (3 nodes): Insufficient cpu: the pod requests cpu 5; a node has cpu 3.4 allocatable",
			"pool windows (2 nodes): Insufficient cpu: the pod requests cpu 5; a node has cpu 2.8 allocatable",
		}},
		{"a label no node has", `
      nodeSelector: {disk: ssd}
      tolerations: [{operator: Exists}]`, []string{
			"pool linux (3 nodes): the pod's nodeSelector disk=ssd, but the nodes have no disk label",
			"pool windows (2 nodes): the pod's nodeSelector disk=ssd, but the nodes have no disk label",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:" + tt.spec + "\n"
			if !strings.Contains(tt.spec, "containers:") {
				yaml += "      containers: [{name: c, image: nginx}]\n"
			}
			p := simulateOn(t, nil, yaml, Input{}).Pods[0]
			if !p.Pending {
				t.Fatalf("pod is not pending: %+v", p)
			}
			if diff := cmp.Diff(tt.want, p.Explanation); diff != "" {
				t.Errorf("explanation (-want +got):\n%s", diff)
			}
		})
	}
}
