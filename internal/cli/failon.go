package cli

import (
	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/rule"
)

// failGate is --fail-on: findings at or above its severity make the exit
// status 1, whatever the output format.
type failGate struct {
	failOn string
	level  rule.Severity
	never  bool
}

func (g *failGate) addFlag(f *pflag.FlagSet) {
	f.StringVar(&g.failOn, "fail-on", "error", "exit 1 when a finding is at or above this severity: error, warning, info or none")
}

func (g *failGate) validate() error {
	if g.failOn == "none" {
		g.never = true
		return nil
	}
	lvl, err := rule.ParseSeverity(g.failOn)
	if err != nil {
		return usagef("--fail-on: %v", err)
	}
	g.level = lvl
	return nil
}

// exit is exit status 1 when an unsuppressed finding reaches the gate.
func (g *failGate) exit(findings []rule.Finding) error {
	if g.never {
		return nil
	}
	for _, f := range findings {
		if !f.Suppressed && f.Severity >= g.level {
			return exitError{ExitFindings}
		}
	}
	return nil
}
