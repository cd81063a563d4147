package docs

import (
	"testing"

	"github.com/winkube/winkube/internal/winsupport"
)

func TestRangeText(t *testing.T) {
	t.Parallel()
	v := func(m int) winsupport.Version { return winsupport.Version{Minor: m} }
	for _, tc := range []struct {
		r    winsupport.Range
		want string
	}{
		{winsupport.Range{From: v(23)}, "1.23 and later"},
		{winsupport.Range{From: v(26), Until: v(32)}, "1.26 to 1.32"},
		{winsupport.Range{From: v(18), Until: v(18)}, "1.18 only"},
		{winsupport.Range{Until: v(13)}, "up to 1.13"},
		{winsupport.Range{}, "all releases"},
		{winsupport.Range{From: v(99)}, "not supported"},
	} {
		if got := rangeText(tc.r); got != tc.want {
			t.Errorf("rangeText(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestAnchor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"winkube rules explain":     "winkube-rules-explain",
		"API server rejections":     "api-server-rejections",
		"missing-os-pin":            "missing-os-pin",
		"Images and Windows builds": "images-and-windows-builds",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDedent(t *testing.T) {
	t.Parallel()
	in := "  winkube lint a/\n\n    indented more\n  helm template . | winkube lint -\n"
	want := "winkube lint a/\n\n  indented more\nhelm template . | winkube lint -"
	if got := dedent(in); got != want {
		t.Errorf("dedent() = %q, want %q", got, want)
	}
}

func TestCell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a | b":      `a \| b`,
		"`a | b`":    "`a \\| b`",
		"two\nlines": "two lines",
		"x_y <z>":    `x\_y &lt;z>`,
	} {
		if got := cell(in); got != want {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
}
