package nodelog

import (
	"strings"
	"sync"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
)

// Pattern is one upstream log string.
type Pattern = rule.Pattern

// Signature is one node problem as its logs show it.
type Signature struct {
	ID, Title string
	// Explain says what the lines mean and what follows from them.
	Explain string
	// Steps are the runbook, in order.
	Steps    []string
	Patterns []Pattern
	Sources  []string

	// lower are the patterns' texts in lower case, made once: Keep runs
	// on every line of every log read.
	lowerOnce sync.Once
	lower     []string
}

// Match returns the first pattern line contains, case-insensitively.
func (s *Signature) Match(line string) (Pattern, bool) {
	return s.matchLower(strings.ToLower(line))
}

func (s *Signature) matchLower(lower string) (Pattern, bool) {
	s.lowerOnce.Do(func() {
		for _, p := range s.Patterns {
			s.lower = append(s.lower, strings.ToLower(p.Text))
		}
	})
	for i, t := range s.lower {
		if strings.Contains(lower, t) {
			return s.Patterns[i], true
		}
	}
	return Pattern{}, false
}

// all is All, made once for Keep.
var all = sync.OnceValue(All)

// Keep says whether a log line can show a signature: the only lines worth
// keeping in memory (fetch.KubeletOptions.KeepLine). It runs on every
// line read, so the line is lowered once for all signatures.
func Keep(_ string, line string) bool {
	lower := strings.ToLower(line)
	for _, s := range all() {
		if _, ok := s.matchLower(lower); ok {
			return true
		}
	}
	return false
}

// Found is one signature's lines in one kubelet's logs.
type Found struct {
	Signature *Signature
	// Lines are the matching lines in the order read; Total counts
	// them all when only the newest are kept in Lines.
	Lines []live.LogLine
	Total int
}

// Find returns the signatures k's logs show, in All's order, each with
// its newest max matching lines (every line when max <= 0).
func Find(k *live.Kubelet, max int) []Found {
	var out []Found
	for _, s := range All() {
		if f, ok := s.Find(k, max); ok {
			out = append(out, f)
		}
	}
	return out
}

// Find returns the lines of k's logs s matches, the newest max of them
// (every one when max <= 0); false when there is none.
func (s *Signature) Find(k *live.Kubelet, max int) (Found, bool) {
	var lines []live.LogLine
	for _, l := range k.Logs {
		if _, ok := s.Match(l.Text); ok {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return Found{}, false
	}
	f := Found{Signature: s, Lines: lines, Total: len(lines)}
	if max > 0 && len(lines) > max {
		f.Lines = lines[len(lines)-max:]
	}
	return f, true
}
