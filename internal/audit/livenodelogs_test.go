package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/live/nodelog"
	"github.com/winkube/winkube/internal/rule"
)

// logsOf is a kubelet whose logs hold one line of each pattern of nr's
// signature, each a minute after the last.
func logsOf(node string, nr *rule.Rule) *live.Kubelet {
	k := &live.Kubelet{Node: node}
	t0 := time.Date(2026, 11, 27, 3, 50, 0, 0, time.UTC)
	for _, s := range nodelog.All() {
		if nodeLogRulePrefix+s.ID != nr.ID {
			continue
		}
		for i, p := range s.Patterns {
			k.Logs = append(k.Logs, live.LogLine{Service: p.Service, Time: t0.Add(time.Duration(i) * time.Minute), Text: `E1127 03:5x:00.000000 1 x.go:1] "` + p.Text + `" err="x"`})
		}
	}
	return k
}

// TestNodeLogMessage: a node-log finding counts the matching lines and
// quotes the newest with its service and timestamp.
func TestNodeLogMessage(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 3, 57, 58, 0, time.UTC)
	k := &live.Kubelet{Node: "win-a", Logs: []live.LogLine{
		{Service: "kube-proxy", Time: t0, Text: `E1127 03:57:58.883120 5120 proxier.go:1480] "ClusterIP policy creation failed" clusterIP="10.96.0.10"`},
		{Service: "kube-proxy", Time: t0.Add(time.Second), Text: `E1127 03:57:59.001277 5120 proxier.go:1534] "Nodeport policy creation failed" nodeport=30080`},
		{Service: "kubelet", Time: t0, Text: `I1127 03:57:58.000000 1 kubelet.go:1] "unrelated"`},
	}}
	s := &live.Snapshot{Nodes: hybrid(), Kubelets: []*live.Kubelet{k}}
	model, _ := live.ModelFor(s.Server)
	var got []rule.Finding
	for _, nr := range nodeLogRules {
		nr.Run.(NodeRun)(Derive(s, model, nil), emitter{rule: nr, out: &got})
	}
	type finding struct {
		Rule               string
		Severity           rule.Severity
		Ref, Message, Hint string
	}
	var gotf []finding
	for _, f := range got {
		gotf = append(gotf, finding{f.Rule, f.Severity, f.Object.Ref(), f.Message, f.Hint})
	}
	want := []finding{{Rule: "node-log-hns-load-balancer-failing", Severity: rule.Warning, Ref: "Node/win-a",
		Message: `node win-a: kube-proxy cannot create or sync HNS load balancers: Services are unreachable from Windows pods: 2 matching line(s) in its logs, the newest (kube-proxy, 2026-11-27T03:57:59Z): E1127 03:57:59.001277 5120 proxier.go:1534] "Nodeport policy creation failed" nodeport=30080`,
		Hint:    nodelog.HNSLoadBalancerFailing.Steps[0]}}
	if diff := cmp.Diff(want, gotf); diff != "" {
		t.Errorf("node-log findings (-want +got):\n%s", diff)
	}
}

// TestReadsLogs: logs are asked for unless every node-log rule is off.
func TestReadsLogs(t *testing.T) {
	t.Parallel()
	allOff := &rule.Settings{Off: map[string]bool{}}
	for _, nr := range nodeLogRules {
		allOff.Off[nr.ID] = true
	}
	oneOn := &rule.Settings{Off: map[string]bool{}}
	for id := range allOff.Off {
		oneOn.Off[id] = !strings.Contains(id, "source-vip")
	}
	for _, tt := range []struct {
		name string
		s    *rule.Settings
		want bool
	}{{"no config", nil, true}, {"all off", allOff, false}, {"one on", oneOn, true}} {
		if got := ReadsLogs(tt.s); got != tt.want {
			t.Errorf("%s: ReadsLogs = %v, want %v", tt.name, got, tt.want)
		}
	}
}
