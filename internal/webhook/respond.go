package webhook

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/rule"
)

// maxWarningLen is the length the API documents for an admission warning;
// longer ones may be truncated by the API server.
const maxWarningLen = 120

// maxWarnings bounds the warnings of one response; the API server drops
// warnings past 4 KiB in all.
const maxWarnings = 12

// verdict is what /validate answers for one object.
type verdict struct {
	denied   []rule.Finding
	warnings []rule.Finding
}

// judge sorts the findings into denials and warnings for the mode.
// Pre-existing findings of an UPDATE (keys in old) are never denied. Info
// findings are left to lint: kubectl would print them as warnings.
func judge(mode Mode, fs []rule.Finding, old map[string]bool) verdict {
	var v verdict
	for _, f := range fs {
		switch {
		case f.Severity == rule.Error && mode == Enforce && !old[findingKey(f)]:
			v.denied = append(v.denied, f)
		case f.Severity >= rule.Warning:
			v.warnings = append(v.warnings, f)
		}
	}
	// Errors first, so that a truncated list keeps what matters most.
	sort.SliceStable(v.warnings, func(i, j int) bool { return v.warnings[i].Severity > v.warnings[j].Severity })
	return v
}

// denial is the Status of a refused object. Its message reads like the
// API server's field errors; the API server prefixes it with
// `admission webhook "NAME" denied the request: `.
func denial(fs []rule.Finding) *metav1.Status {
	parts := make([]string, len(fs))
	causes := make([]metav1.StatusCause, len(fs))
	for i, f := range fs {
		parts[i] = fieldMessage(f) + " (" + f.Rule + ")"
		causes[i] = metav1.StatusCause{Type: metav1.CauseType("winkube.io/" + f.Rule), Message: f.Message, Field: f.Path}
	}
	return &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: strings.Join(parts, "; "), Details: &metav1.StatusDetails{Causes: causes}}
}

// fieldMessage is "path: message", unless the message names its path
// already (the API server's own errors do).
func fieldMessage(f rule.Finding) string {
	if f.Path == "" || strings.HasPrefix(f.Message, f.Path+":") {
		return f.Message
	}
	return f.Path + ": " + f.Message
}

// warningTexts renders warnings as "rule: message (path)", the path left
// out when it does not fit and the whole cut to maxWarningLen characters,
// so that the rule ID and the start of the message always survive.
func warningTexts(fs []rule.Finding) []string {
	var out []string
	for i, f := range fs {
		if i == maxWarnings-1 && len(fs) > maxWarnings {
			out = append(out, fmt.Sprintf("winkube: %d more findings; run winkube lint on the manifest to see them all", len(fs)-i))
			break
		}
		text := f.Rule + ": " + f.Message
		if f.Path != "" && !strings.HasPrefix(f.Message, f.Path+":") {
			if long := text + " (" + f.Path + ")"; utf8.RuneCountInString(long) <= maxWarningLen {
				text = long
			}
		}
		out = append(out, truncate(text, maxWarningLen))
	}
	return out
}

// truncate cuts s to n characters, ending it with an ellipsis when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
