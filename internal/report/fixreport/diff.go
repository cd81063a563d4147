package fixreport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/report"
)

// Stdin is the name fix gives standard input; its fixed text is written
// whole rather than as a diff, so fix works as a filter.
const Stdin = "<stdin>"

// WriteDiff writes, for every file fix changed, its fixes as comments and
// a unified diff; for standard input, the fixed text. before holds the
// inputs in the order of res.Files.
func WriteDiff(w io.Writer, before []fix.File, res *fix.Result, colour bool) error {
	bw := bufio.NewWriter(w)
	for i, fr := range res.Files {
		old := before[i].Data
		switch {
		case fr.Name == Stdin:
			bw.Write(fr.After)
		case !bytes.Equal(old, fr.After):
			for _, n := range fr.Notes {
				fmt.Fprintln(bw, report.Paint(colour, report.Dim, "# "+fr.Name+": "+n))
			}
			writeDiff(bw, fr.Name, old, fr.After, colour)
		}
	}
	return bw.Flush()
}

func writeDiff(w io.Writer, name string, before, after []byte, colour bool) {
	d := unifiedDiff(name, before, after)
	if !colour {
		io.WriteString(w, d)
		return
	}
	for _, line := range strings.SplitAfter(d, "\n") {
		c := report.Colour("")
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			c = report.Bold
		case strings.HasPrefix(line, "+"):
			c = report.Green
		case strings.HasPrefix(line, "-"):
			c = report.Red
		case strings.HasPrefix(line, "@@"):
			c = report.Cyan
		}
		body, nl := strings.CutSuffix(line, "\n")
		if c != "" && body != "" {
			body = report.Paint(true, c, body)
		}
		io.WriteString(w, body)
		if nl {
			io.WriteString(w, "\n")
		}
	}
}

// lines splits text into lines that each end in a newline; a last line
// without one gets one.
func lines(text []byte) []string {
	out := strings.SplitAfter(string(text), "\n")
	if out[len(out)-1] == "" {
		return out[:len(out)-1]
	}
	out[len(out)-1] += "\n"
	return out
}
