package nodelog

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/live"
)

var (
	kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	// pinned: an upstream file at a tag (owner/repo vX.Y.Z path).
	pinned = regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+ v\d+\.\d+\.\d+ \S+\.go`)
)

// TestSignatures: every signature is documented, and every string it
// matches names the file and tag that writes it.
func TestSignatures(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, s := range All() {
		if !kebab.MatchString(s.ID) || seen[s.ID] {
			t.Errorf("%q: ID not kebab-case or repeated", s.ID)
		}
		seen[s.ID] = true
		if s.Title == "" || s.Explain == "" || len(s.Steps) == 0 || len(s.Patterns) == 0 || len(s.Sources) == 0 {
			t.Errorf("%s: title, explanation, steps, patterns or sources missing", s.ID)
		}
		for _, p := range s.Patterns {
			if p.Text == "" || p.Service == "" || !pinned.MatchString(p.Source) {
				t.Errorf("%s: pattern %q of %q: source %q is not a file at a tag", s.ID, p.Text, p.Service, p.Source)
			}
			line := `E1127 03:58:01.000000 1 x.go:1] "` + strings.ToUpper(p.Text) + `"`
			if got, ok := s.Match(line); !ok || got != p || !Keep(p.Service, line) {
				t.Errorf("%s: %q does not match its own line (case-insensitively)", s.ID, p.Text)
			}
		}
	}
	if Keep("kubelet", `I1127 03:58:01.000000 1 kubelet.go:1] "Routine housekeeping"`) {
		t.Error("Keep keeps a line no signature matches")
	}
}

// TestFind: the newest lines of each signature, with the count of all.
func TestFind(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 3, 58, 0, 0, time.UTC)
	line := func(i int, text string) live.LogLine {
		return live.LogLine{Service: "kube-proxy", Time: t0.Add(time.Duration(i) * time.Second), Text: text}
	}
	k := &live.Kubelet{Node: "win-a", Logs: []live.LogLine{
		line(0, `"ClusterIP policy creation failed"`),
		line(1, `"Routine"`),
		line(2, `"Nodeport policy creation failed"`),
		line(3, `"source-vip flag not set"`),
		line(4, `"Update loadbalancer policy failed"`),
	}}
	type got struct {
		ID    string
		Times []int
		Total int
	}
	var out []got
	for _, f := range Find(k, 2) {
		g := got{ID: f.Signature.ID, Total: f.Total}
		for _, l := range f.Lines {
			g.Times = append(g.Times, int(l.Time.Sub(t0)/time.Second))
		}
		out = append(out, g)
	}
	want := []got{{"hns-load-balancer-failing", []int{2, 4}, 3}, {"source-vip-problem", []int{3}, 1}}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}
}
