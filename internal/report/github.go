package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/winkube/winkube/internal/rule"
)

// GitHub writes one GitHub Actions workflow command per unsuppressed
// finding, `::error file=F,line=L,col=C,title=RULE::message`, which the
// runner turns into an annotation on the file's line. Warnings use
// ::warning and infos ::notice; the hint follows the message on its own
// line. Findings read from stdin have no file to annotate; their position
// leads the message instead.
func GitHub(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for _, f := range r.Findings {
		if f.Suppressed {
			continue
		}
		var props []string
		msg := Clean(f.Message)
		switch {
		case f.File == stdinName:
			// No file in the workspace to annotate: the annotation goes to
			// the run's summary, and the message says where.
			msg = Clean(position(f)) + ": " + msg
		case f.File != "":
			props = append(props, "file="+escapeProperty(githubPath(f.File)))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
				if f.Column > 0 {
					props = append(props, fmt.Sprintf("col=%d", f.Column))
				}
			}
		}
		props = append(props, "title="+escapeProperty(f.Rule))
		if f.Hint != "" {
			msg += "\nhint: " + Clean(f.Hint)
		}
		fmt.Fprintf(bw, "::%s %s::%s\n", githubLevel(f.Severity), strings.Join(props, ","), escapeData(msg))
	}
	return bw.Flush()
}

func githubLevel(s rule.Severity) string {
	switch s {
	case rule.Error:
		return "error"
	case rule.Warning:
		return "warning"
	}
	return "notice"
}

// githubPath makes an input path what annotations expect: relative to the
// workspace, with forward slashes.
func githubPath(file string) string {
	return filepath.ToSlash(filepath.Clean(file))
}

// The runner's escaping (actions/toolkit, core/src/command.ts): data
// escapes %, CR and LF; property values also escape : and , which
// separate properties.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func escapeData(s string) string     { return dataEscaper.Replace(s) }
func escapeProperty(s string) string { return Clean(propertyEscaper.Replace(s)) }
