package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// TestToSources: findings of a rendered input move to the source line the
// origin names (keeping the rendered column when it says -1), keep the
// rendered position as related, and are sorted again by source position;
// findings of other inputs stay as they are.
func TestToSources(t *testing.T) {
	t.Parallel()
	origin := func(line int, _ string) (string, int, int, bool) {
		switch line {
		case 10:
			return "tmpl.yaml", 30, -1, true
		case 20:
			return "tmpl.yaml", 5, 3, true
		}
		return "", 0, 0, false
	}
	ins := []manifest.Input{manifest.RenderedInput("tmpl.yaml (rendered)", nil, origin), manifest.BytesInput("plain.yaml", nil)}
	fs := []rule.Finding{
		{Rule: "a", File: "tmpl.yaml (rendered)", Line: 10, Column: 7},
		{Rule: "b", File: "tmpl.yaml (rendered)", Line: 20, Column: 9},
		{Rule: "c", File: "tmpl.yaml (rendered)", Line: 25, Column: 1},
		{Rule: "d", File: "plain.yaml", Line: 2, Column: 1},
	}
	toSources(fs, ins)
	rendered := func(line, col int) []rule.Location {
		return []rule.Location{{File: "tmpl.yaml (rendered)", Line: line, Column: col, Message: "rendered"}}
	}
	want := []rule.Finding{
		{Rule: "b", File: "tmpl.yaml", Line: 5, Column: 3, Related: rendered(20, 9)},
		{Rule: "a", File: "tmpl.yaml", Line: 30, Column: 7, Related: rendered(10, 7)},
		{Rule: "c", File: "tmpl.yaml (rendered)", Line: 25, Column: 1},
		{Rule: "d", File: "plain.yaml", Line: 2, Column: 1},
	}
	if diff := cmp.Diff(want, fs); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
