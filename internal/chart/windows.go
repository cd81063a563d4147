package chart

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/winkube/winkube/internal/manifest"
)

// WindowsNotRenderedID is the lint rule that reports a Windows template
// the values left unrendered (rules.WindowsTemplateNotRendered).
const WindowsNotRenderedID = "windows-template-not-rendered"

// noteClass is the Class of a note: not a problem reading the chart but a
// finding of the rule it names, which the engine reports as that rule's.
type noteClass string

func (c noteClass) Error() string  { return "Windows template not rendered" }
func (c noteClass) RuleID() string { return string(c) }

// ErrWindowsNotRendered is the Class of the notes Render returns for the
// templates holding Windows markers that rendered nothing with the values
// given: winkube checked none of their objects. errors.Is matches it.
var ErrWindowsNotRendered error = noteClass(WindowsNotRenderedID)

// windowsMarkers are what makes a template's source Windows: each with the
// words the note quotes.
var windowsMarkers = []struct {
	re   *regexp.Regexp
	name string
}{
	{regexp.MustCompile(`kubernetes\.io/os["']?\s*:\s*["']?windows\b`), "kubernetes.io/os: windows"},
	{regexp.MustCompile(`\bwindowsOptions\b`), "windowsOptions"},
	{regexp.MustCompile(`\bhostProcess\b`), "hostProcess"},
	{regexp.MustCompile(`(?i)mcr\.microsoft\.com/windows|\bnanoserver\b|\bservercore\b`), "a Windows image"},
}

// windowsMarker is the first Windows marker of a template (its source,
// then its file name), or "".
func windowsMarker(name string, src []byte) string {
	for _, m := range windowsMarkers {
		if m.re.Match(src) {
			return m.name
		}
	}
	if strings.Contains(strings.ToLower(path.Base(name)), "windows") {
		return "windows in its file name"
	}
	return ""
}

// renderedNothing: the output holds no YAML, only blank lines, document
// separators and comments.
func renderedNothing(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && l != "---" && l != "..." && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

// ignoreLine finds a winkube.io/ignore annotation in a template's source:
// the object it would render asks for the rule to stay quiet.
var ignoreLine = regexp.MustCompile(`winkube\.io/ignore["']?\s*:\s*["']?([^"'\n]*)`)

func ignoresNote(src []byte) bool {
	for _, m := range ignoreLine.FindAllSubmatch(src, -1) {
		for _, id := range strings.Split(string(m[1]), ",") {
			if id = strings.TrimSpace(id); id == WindowsNotRenderedID || id == "all" {
				return true
			}
		}
	}
	return false
}

// windowsNotes are the notes of the chart's templates that hold Windows
// markers and rendered nothing with these values: helpers (_*.tpl) and
// NOTES.txt print no object and are not templates of their own.
func windowsNotes(dir string, files map[string]string, sources map[string][]byte, vals chartutil.Values) []*manifest.Error {
	var out []*manifest.Error
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		base := path.Base(name)
		if strings.HasPrefix(base, "_") || base == "NOTES.txt" || !renderedNothing(files[name]) {
			continue
		}
		src := sources[name]
		marker := windowsMarker(name, src)
		if marker == "" || ignoresNote(src) {
			continue
		}
		g := findGuard(src)
		msg, hint := g.explain(valuesPrefix(name), vals)
		out = append(out, &manifest.Error{File: diskPath(dir, name), Line: g.line, Class: ErrWindowsNotRendered,
			Msg:  fmt.Sprintf("Windows template (%s) renders nothing with these values: %s, so winkube checked none of it", marker, msg),
			Hint: hint})
	}
	return out
}

// A guard is the first condition of a template (if, with, range): the one
// that hides a template rendering nothing.
type guard struct {
	line int    // 1-based; 0 when the template has none
	kw   string // if, with or range
	cond string // the action's pipeline, as written
}

var guardAction = regexp.MustCompile(`\{\{-?\s*(if|with|range)\s+(.*?)\s*-?\}\}`)

func findGuard(src []byte) guard {
	for i, l := range strings.Split(string(src), "\n") {
		if m := guardAction.FindStringSubmatch(l); m != nil {
			return guard{line: i + 1, kw: m[1], cond: m[2]}
		}
	}
	return guard{}
}

// valuePath matches a value of the chart's own: .Values.a.b or
// $.Values.a.b, parenthesised or not.
var valuePath = regexp.MustCompile(`^\(?\$?\.Values\.([A-Za-z0-9_.]+)\)?$`)

// operands splits "x", "and x y ...", "or x y ..." into the value paths it
// tests and the operator; ok is false for any other condition.
func (g guard) operands() (op string, paths []string, ok bool) {
	if g.kw != "if" {
		return "", nil, false
	}
	fields := strings.Fields(g.cond)
	op = ""
	if len(fields) > 2 && (fields[0] == "and" || fields[0] == "or") {
		op, fields = fields[0], fields[1:]
	}
	for _, f := range fields {
		m := valuePath.FindStringSubmatch(f)
		if m == nil {
			return "", nil, false
		}
		paths = append(paths, m[1])
	}
	return op, paths, len(paths) == 1 || op != ""
}

// explain says why the template rendered nothing and what to pass to
// render it. prefix is the subchart's place in the values ("" for the
// chart itself, "sub." for charts/sub).
func (g guard) explain(prefix string, vals chartutil.Values) (msg, hint string) {
	if g.line == 0 {
		return "it has no condition winkube can name", "lint again with the values that make it render to check it"
	}
	op, paths, ok := g.operands()
	var off []string
	for _, p := range paths {
		if !truthy(vals, prefix+p) {
			off = append(off, prefix+p)
		}
	}
	cond := "`" + g.kw + " " + g.cond + "`"
	switch {
	case !ok:
		return "its condition " + cond + " is false or empty",
			"lint again with --set or --values making that condition true to check it"
	case len(off) == 0:
		return "its guard " + cond + " holds, but a condition or an empty list below it hides the rest",
			"lint again with the values that make it render to check it"
	}
	if op == "or" {
		return "its guard " + strings.Join(off, " or ") + " is false",
			"lint again with --set " + off[0] + "=true to check it"
	}
	sets := make([]string, len(off))
	for i, p := range off {
		sets[i] = "--set " + p + "=true"
	}
	verb := " is false"
	if len(off) > 1 {
		verb = " are false"
	}
	return "its guard " + strings.Join(off, " and ") + verb, "lint again with " + strings.Join(sets, " ") + " to check it"
}

// truthy is text/template's truth of the value at the dotted path.
func truthy(vals chartutil.Values, p string) bool {
	v, err := vals.PathValue(p)
	if err != nil {
		// PathValue reads leaves only; a table is true when it has keys.
		t, err := vals.Table(p)
		return err == nil && len(t) > 0
	}
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	case float64:
		return v != 0
	case int64:
		return v != 0
	case int:
		return v != 0
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// valuesPrefix is where a template's chart reads its values from the top
// chart's: "" for the chart itself, "sub." for charts/sub, "sub.subsub."
// below it (helm scopes a subchart's .Values under its name).
func valuesPrefix(name string) string {
	dir, _, _ := strings.Cut(name, "/templates/")
	parts := strings.Split(dir, "/charts/")
	if len(parts) <= 1 {
		return ""
	}
	return strings.Join(parts[1:], ".") + "."
}
