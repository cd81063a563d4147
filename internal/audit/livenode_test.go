package audit

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// TestLiveConfig: a node's live /configz is checked with nodeconfig's
// rules, IDs and messages, reported against the Node; the path used is in
// the notes and nodeconfig's rules are in the report's rule list.
func TestLiveConfig(t *testing.T) {
	t.Parallel()
	check := &NodeConfigCheck{Rules: nodeconfig.Rules(), Check: func(name string, data []byte, build int) ([]rule.Finding, error) {
		return nodeconfig.CheckConfigz(name, data, build, winsupport.Default())
	}}
	good := `{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","cgroupsPerQOS":false,"enforceNodeAllocatable":["none"],` +
		`"containerRuntimeEndpoint":"npipe:////./pipe/containerd-containerd","systemReserved":{"memory":"2Gi"},"evictionHard":{"memory.available":"500Mi"}}`
	bad := `{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","cgroupsPerQOS":false,"enforceNodeAllocatable":["none"],` +
		`"containerRuntimeEndpoint":"unix:///run/containerd/containerd.sock","systemReserved":{"memory":"2Gi"},"evictionHard":{"memory.available":"500Mi"}}`
	s := &live.Snapshot{Server: "v1.36.3", Nodes: hybrid(), KubeletAccess: &live.KubeletAccess{Path: "proxy", Nodes: 2},
		Kubelets: []*live.Kubelet{{Node: "win-a", Config: []byte(good)}, {Node: "win-b", Config: []byte(bad)}}}
	res, err := Run(context.Background(), s, Options{NoSimulation: true, NodeConfig: check})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		if f.Rule == "kubelet-runtime-endpoint" {
			got = append(got, f.Object.Ref()+": "+f.Message)
		}
	}
	want := []string{`Node/win-b: node win-b (live /configz): containerRuntimeEndpoint "unix:///run/containerd/containerd.sock" is a Unix socket: the Windows kubelet supports npipe and tcp endpoints`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("live configuration findings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read the kubelets of 2 Windows node(s) through the API server's node proxy (nodes/proxy)"}, res.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	found := false
	for _, r := range res.Rules {
		found = found || r.ID == "kubelet-runtime-endpoint"
	}
	if !found {
		t.Error("nodeconfig's rules are not in the report's rule list")
	}

	// The config's settings reach the live check: re-graded, the finding
	// reports at the configured severity; off, it is gone, and so is the
	// rule from the report's list.
	for _, tt := range []struct {
		name     string
		settings *rule.Settings
		want     []rule.Severity
	}{
		{"re-graded", &rule.Settings{Severity: map[string]rule.Severity{"kubelet-runtime-endpoint": rule.Info}}, []rule.Severity{rule.Info}},
		{"off", &rule.Settings{Off: map[string]bool{"kubelet-runtime-endpoint": true}}, nil},
	} {
		res, err := Run(context.Background(), s, Options{NoSimulation: true, NodeConfig: check, Settings: tt.settings})
		if err != nil {
			t.Fatal(err)
		}
		var got []rule.Severity
		for _, f := range res.Findings {
			if f.Rule == "kubelet-runtime-endpoint" {
				got = append(got, f.Severity)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: severities of kubelet-runtime-endpoint (-want +got):\n%s", tt.name, diff)
		}
		listed := false
		for _, r := range res.Rules {
			listed = listed || r.ID == "kubelet-runtime-endpoint"
		}
		if listed != (tt.want != nil) {
			t.Errorf("%s: kubelet-runtime-endpoint in the report's rule list: %t", tt.name, listed)
		}
	}
}
