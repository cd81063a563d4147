package policy

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/rule"
)

// The policies' messages are lint's, in the form docs/policy.md
// ("Messages") documents: a validation reports every finding of its rule
// for the object, their messages joined by "; " in the order of the pod
// spec (lint orders findings by their line in the file), and a rule with
// several validations (missing-os-pin, conflicting-os-signals,
// windows-unsupported-volume, linux-daemonset-unpinned) may split the
// findings among them. messagesAgree checks exactly that: each policy
// message is a "; "-joined sequence of lint's messages, and together they
// use every one of lint's messages once.

// documented rewrites lint's message of a rule into what the policy
// says where docs/policy.md documents a difference.
var documented = map[string]func(string) string{}

// messagesAgree reports how the policy messages of one rule differ from
// lint's findings of it, or "" when they agree.
func messagesAgree(id string, policy []string, fs []rule.Finding) string {
	var lint []string
	for _, f := range fs {
		if f.Rule != id {
			continue
		}
		msg := f.Message
		if d := documented[id]; d != nil {
			msg = d(msg)
		}
		lint = append(lint, msg)
	}
	used := make([]bool, len(lint))
	var match func(p int, rest string) bool
	match = func(p int, rest string) bool {
		if rest == "" {
			if p+1 < len(policy) {
				return match(p+1, policy[p+1])
			}
			for _, u := range used {
				if !u {
					return false
				}
			}
			return true
		}
		for i, l := range lint {
			if used[i] || !strings.HasPrefix(rest, l) {
				continue
			}
			next := rest[len(l):]
			if next != "" && !strings.HasPrefix(next, "; ") {
				continue
			}
			used[i] = true
			if match(p, strings.TrimPrefix(next, "; ")) {
				return true
			}
			used[i] = false
		}
		return false
	}
	if len(policy) > 0 && match(0, policy[0]) {
		return ""
	}
	return fmt.Sprintf("%s: the policies say %q\n      lint (documented form) says %q", id, policy, lint)
}
