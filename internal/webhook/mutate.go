package webhook

import (
	"encoding/json"
	"fmt"

	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

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
	// A fix can make another rule apply (pinning a pod to Windows makes it
	// need the Windows toleration): check again until nothing changes,
	// with the bound every front-end of fix shares.
	_, err := fix.Rounds(func(round int) (bool, error) {
		fixes := safeFixes(p.check(o), skip)
		if len(fixes) == 0 {
			return false, nil
		}
		if doc == nil {
			if err := json.Unmarshal(raw, &doc); err != nil {
				return false, fmt.Errorf("%s: %w", objectFile, err)
			}
		}
		before := len(m.ops)
		for _, f := range fixes {
			ops, err := fix.Patch(doc, f.Fix.Edits) // all or nothing
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
		if len(m.ops) == before || round == fix.MaxPasses-1 {
			return false, nil
		}
		next, err := json.Marshal(doc)
		if err != nil {
			return false, err
		}
		if o, err = decodeObject(objectFile, next, o.Namespace); err != nil {
			return false, fmt.Errorf("re-reading the fixed object: %w", err)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
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
