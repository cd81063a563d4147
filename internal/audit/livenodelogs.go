package audit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/winkube/winkube/internal/live/nodelog"
	"github.com/winkube/winkube/internal/rule"
)

// nodeLogRulePrefix starts the ID of the audit rule of each node-log
// signature: the signature's own ID is doctor's cause, and IDs are unique
// across the catalogue.
const nodeLogRulePrefix = "node-log-"

// nodeLogRules are the audit's rules over the Windows nodes' service
// logs, one per signature doctor also matches (internal/live/nodelog).
var nodeLogRules = func() []*rule.Rule {
	var out []*rule.Rule
	for _, s := range nodelog.All() {
		out = append(out, nodeLogRule(s))
	}
	return out
}()

func nodeLogRule(s *nodelog.Signature) *rule.Rule {
	var services []string
	for _, p := range s.Patterns {
		if !slices.Contains(services, p.Service) {
			services = append(services, p.Service)
		}
	}
	return &rule.Rule{ID: nodeLogRulePrefix + s.ID, Title: "Node logs: " + lowerFirst(s.Title), Severity: rule.Warning, Category: CategoryNodes, Family: rule.FamilyAudit,
		Doc: rule.Doc{
			What:    fmt.Sprintf("With `--node-reads`, the recent log (the last hour, at most 500 lines and 16 MiB a service) of a Windows node's %s, read through the kubelet's node log query, has a line doctor's cause `%s` matches: %s.", strings.Join(services, ", "), s.ID, quoted(s.Patterns)),
			Why:     s.Explain,
			Fix:     strings.Join(s.Steps, " ") + " `winkube doctor --node-reads=direct` (or `proxy`) gives the runbook with the node's commands.",
			Sources: s.Sources,
		},
		Run: NodeRun(func(f *Facts, e emitter) {
			for _, k := range f.Snapshot.Kubelets {
				n := f.Snapshot.Node(k.Node)
				if n == nil {
					continue
				}
				if found, ok := s.Find(k, 1); ok {
					e.report(nodeObject(n), "", logMessage(k.Node, found), s.Steps[0])
				}
			}
		}),
	}
}

// logMessage quotes the newest matching line with its service and
// timestamp.
func logMessage(node string, found nodelog.Found) string {
	l := found.Lines[len(found.Lines)-1]
	when := "no timestamp"
	if !l.Time.IsZero() {
		when = l.Time.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("node %s: %s: %d matching line(s) in its logs, the newest (%s, %s): %s", node, lowerFirst(found.Signature.Title), found.Total, l.Service, when, strings.TrimSpace(l.Text))
}

// ReadsLogs says whether an audit with these settings judges node logs:
// when every node-log rule is off, no log is asked for.
func ReadsLogs(s *rule.Settings) bool {
	for _, nr := range nodeLogRules {
		if s.Apply(nr) != nil {
			return true
		}
	}
	return false
}

// KeepLogLine keeps the log lines a node-log rule can match
// (fetch.KubeletOptions.KeepLine).
func KeepLogLine(service, line string) bool { return nodelog.Keep(service, line) }

func quoted(ps []nodelog.Pattern) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = fmt.Sprintf("%q (%s)", p.Text, p.Service)
	}
	return strings.Join(q, ", ")
}

// lowerFirst lowers a title's first word for use inside a sentence,
// unless it is an acronym.
func lowerFirst(s string) string {
	if len(s) < 2 || s[1] < 'a' || s[1] > 'z' {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
