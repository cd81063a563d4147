package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/winkube/winkube/internal/rule"
)

// repeatedHint is how many findings must share a hint before the text
// report prints it once, after the findings, instead of under each one.
const repeatedHint = 3

type hintKey struct{ rule, hint string }

// hintCounts counts the unsuppressed findings sharing each rule's hint.
func hintCounts(fs []rule.Finding) map[hintKey]int {
	n := map[hintKey]int{}
	for _, f := range fs {
		if !f.Suppressed && f.Hint != "" {
			n[hintKey{f.Rule, f.Hint}]++
		}
	}
	return n
}

// writeHints prints each repeated hint once, with how many findings it
// applies to, in the order of the findings.
func writeHints(w io.Writer, fs []rule.Finding, counts map[hintKey]int, dim func(string) string) {
	done := map[hintKey]bool{}
	for _, f := range fs {
		k := hintKey{f.Rule, f.Hint}
		if f.Suppressed || counts[k] < repeatedHint || done[k] {
			continue
		}
		done[k] = true
		fmt.Fprintf(w, "%s %s (%d findings of %s)\n", dim("hint:"), Clean(f.Hint), counts[k], Clean(f.Rule))
	}
}

// writeRuleTable closes the report with the number of findings per rule
// and severity, most frequent first.
func writeRuleTable(w io.Writer, fs []rule.Finding) {
	type row struct {
		id  string
		sev [3]int // error, warning, info
	}
	rows := map[string]*row{}
	for _, f := range fs {
		if f.Suppressed {
			continue
		}
		r := rows[f.Rule]
		if r == nil {
			r = &row{id: f.Rule}
			rows[f.Rule] = r
		}
		switch f.Severity {
		case rule.Error:
			r.sev[0]++
		case rule.Warning:
			r.sev[1]++
		default:
			r.sev[2]++
		}
	}
	if len(rows) == 0 {
		return
	}
	list := make([]*row, 0, len(rows))
	width := len("rule")
	for _, r := range rows {
		list = append(list, r)
		width = max(width, len(r.id))
	}
	total := func(r *row) int { return r.sev[0] + r.sev[1] + r.sev[2] }
	sort.Slice(list, func(i, j int) bool {
		if total(list[i]) != total(list[j]) {
			return total(list[i]) > total(list[j])
		}
		return list[i].id < list[j].id
	})
	fmt.Fprintf(w, "\n%-*s  %6s  %8s  %4s\n", width, "rule", "errors", "warnings", "info")
	for _, r := range list {
		fmt.Fprintf(w, "%-*s  %6d  %8d  %4d\n", width, Clean(r.id), r.sev[0], r.sev[1], r.sev[2])
	}
}
