package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/winkube/winkube/internal/rule"
)

// Text writes one line per unsuppressed finding,
// `file:line:col: severity: message [rule-id]`, a hint line under it when
// there is one, and a summary line.
func Text(w io.Writer, r *Report, opts Options) error {
	bw := bufio.NewWriter(w)
	paint := func(c Colour, s string) string { return Paint(opts.Color, c, s) }
	hints := hintCounts(r.Findings)
	for _, f := range r.Findings {
		if f.Suppressed {
			continue
		}
		sev := paintSeverity(opts.Color, f.Severity, f.Severity.String())
		fmt.Fprintf(bw, "%s: %s: %s %s\n", Clean(position(f)), sev, Clean(f.Message), paint(Dim, "["+Clean(f.Rule)+"]"))
		for _, l := range f.Related {
			fmt.Fprintf(bw, "    %s %s\n", paint(Dim, Clean(l.Message)+":"), Clean(position(rule.Finding{File: l.File, Line: l.Line, Column: l.Column})))
		}
		if f.Hint != "" && hints[hintKey{f.Rule, f.Hint}] < repeatedHint {
			fmt.Fprintf(bw, "    %s %s\n", paint(Dim, "hint:"), Clean(f.Hint))
		}
	}
	writeHints(bw, r.Findings, hints, func(s string) string { return paint(Dim, s) })
	writeRuleTable(bw, r.Findings)
	c := r.Count()
	fmt.Fprintf(bw, "%s, %s, %s in %s (%s)", plural(c.Errors, "error"), plural(c.Warnings, "warning"), plural(c.Infos, "info"), plural(r.Objects, "object"), plural(r.Files, "file"))
	if c.Suppressed > 0 {
		fmt.Fprintf(bw, "; %d suppressed", c.Suppressed)
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

func position(f rule.Finding) string {
	switch {
	case f.File == "" && f.Object != nil && f.Path != "":
		return f.Object.Ref() + ":" + f.Path // a live object: a logical location
	case f.File == "" && f.Object != nil:
		return f.Object.Ref()
	case f.Line > 0 && f.Column > 0:
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	case f.Line > 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.File
}

func plural(n int, word string) string {
	if n == 1 || word == "info" {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
