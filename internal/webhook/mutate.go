package webhook

import (
	"encoding/json"
	"fmt"

	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// maxFixRounds bounds the check-fix rounds of one request. A fix can make
// another rule apply (pinning a pod to Windows makes it need the Windows
// toleration); three rounds reach every chain the suite has, and the bound
// keeps a pair of disagreeing fixes from looping.
const maxFixRounds = 3

// mutation is the outcome of fixing one object.
type mutation struct {
	ops   []fix.PatchOp
	rules []string // the rules whose fixes changed something, in order
}

// mutate applies the safe fixes of o's findings to raw, o's JSON, and
// returns them as a JSON patch. Findings in skip (an UPDATE's pre-existing
// ones) are not fixed. A fix that cannot be applied is left out; the
// others still are.
func (p *policy) mutate(raw []byte, o *manifest.Object, skip map[string]bool, logf func(string, ...any)) (*mutation, error) {
	m := &mutation{}
	var doc map[string]any
	fixedBy := map[string]bool{}
	for round := 0; round < maxFixRounds; round++ {
		fixes := safeFixes(p.check(o), skip)
		if len(fixes) == 0 {
			break
		}
		if doc == nil {
			if err := json.Unmarshal(raw, &doc); err != nil {
				return nil, fmt.Errorf("%s: %w", objectFile, err)
			}
		}
		before := len(m.ops)
		for _, f := range fixes {
			ops, err := applyFix(doc, f.Fix)
			if err != nil {
				logf("fix not applied", "rule", f.Rule, "fix", f.Fix.Title, "error", err.Error())
				continue
			}
			if len(ops) > 0 {
				m.ops = append(m.ops, ops...)
				if !fixedBy[f.Rule] {
					fixedBy[f.Rule] = true
					m.rules = append(m.rules, f.Rule)
				}
			}
		}
		if len(m.ops) == before || round == maxFixRounds-1 {
			break
		}
		next, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		if o, err = decodeObject(objectFile, next, o.Namespace); err != nil {
			return nil, fmt.Errorf("re-reading the fixed object: %w", err)
		}
	}
	return m, nil
}

// safeFixes returns the findings whose fix the webhook may apply.
func safeFixes(fs []rule.Finding, skip map[string]bool) []rule.Finding {
	var out []rule.Finding
	for _, f := range fs {
		if f.Fix != nil && f.Fix.Safe && len(f.Fix.Edits) > 0 && !skip[findingKey(f)] {
			out = append(out, f)
		}
	}
	return out
}

// applyFix patches doc with one fix, all or nothing. fix.Patch checks a
// single edit before changing doc, so only fixes of several edits need a
// copy to fall back to.
func applyFix(doc map[string]any, f *rule.Fix) ([]fix.PatchOp, error) {
	if len(f.Edits) == 1 {
		return fix.Patch(doc, f.Edits)
	}
	trial := deepCopy(doc).(map[string]any)
	ops, err := fix.Patch(trial, f.Edits)
	if err != nil {
		return nil, err
	}
	for k := range doc {
		delete(doc, k)
	}
	for k, v := range trial {
		doc[k] = v
	}
	return ops, nil
}

// deepCopy copies a value decoded by encoding/json.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
