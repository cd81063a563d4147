package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/winkube/winkube/internal/rule"
)

const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiDim    = "\x1b[2m"
	ansiReset  = "\x1b[0m"
)

// Text writes one line per unsuppressed finding,
// `file:line:col: severity: message [rule-id]`, a hint line under it when
// there is one, and a summary line.
func Text(w io.Writer, r *Report, opts Options) error {
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !opts.Color {
			return s
		}
		return code + s + ansiReset
	}
	hints := hintCounts(r.Findings)
	for _, f := range r.Findings {
		if f.Suppressed {
			continue
		}
		sev := f.Severity.String()
		switch f.Severity {
		case rule.Error:
			sev = paint(ansiRed, sev)
		case rule.Warning:
			sev = paint(ansiYellow, sev)
		default:
			sev = paint(ansiCyan, sev)
		}
		fmt.Fprintf(bw, "%s: %s: %s %s\n", position(f), sev, f.Message, paint(ansiDim, "["+f.Rule+"]"))
		if f.Hint != "" && hints[hintKey{f.Rule, f.Hint}] < repeatedHint {
			fmt.Fprintf(bw, "    %s %s\n", paint(ansiDim, "hint:"), f.Hint)
		}
	}
	writeHints(bw, r.Findings, hints, func(s string) string { return paint(ansiDim, s) })
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
