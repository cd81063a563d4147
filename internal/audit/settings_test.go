package audit

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
)

// TestRunSettings: the config's settings reach the node rules and the
// audit's own rules; nil settings run them as documented.
func TestRunSettings(t *testing.T) {
	t.Parallel()
	snap := func() *live.Snapshot {
		return &live.Snapshot{Server: "v1.36.3", Nodes: hybrid(node("win-old", "windows", runtime("containerd://1.6.2")), node("win-down", "windows", notReady))}
	}
	tests := []struct {
		name string
		set  *rule.Settings
		want []string
	}{
		{"defaults", nil, []string{"windows-node-containerd-old warning", "windows-node-not-ready error"}},
		{"disabled", &rule.Settings{Off: map[string]bool{windowsNodeNotReady.ID: true}}, []string{"windows-node-containerd-old warning"}},
		{"re-graded", &rule.Settings{Severity: map[string]rule.Severity{windowsNodeNotReady.ID: rule.Info, windowsNodeContainerdOld.ID: rule.Error}},
			[]string{"windows-node-containerd-old error", "windows-node-not-ready info"}},
	}
	for _, tt := range tests {
		res, err := Run(t.Context(), snap(), Options{Settings: tt.set, NoSimulation: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Findings {
			got = append(got, f.Rule+" "+f.Severity.String())
		}
		sort.Strings(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
