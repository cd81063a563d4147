package rule

import "fmt"

// Family says what a rule inspects and so which front-end runs it. Every
// family is documented and configured the same way; only the run function
// differs. Lint is the zero value: the rules of package rules need not name
// it.
type Family int

const (
	// Lint rules run over Kubernetes objects (lint, fix, simulate, the
	// webhook, audit's live workloads, policy export).
	Lint Family = iota
	// FamilyNodeConfig rules run over a Windows node's own configuration
	// files (winkube nodeconfig validate); package nodeconfig runs them.
	FamilyNodeConfig
	// FamilyAudit rules run over a live cluster's nodes and the simulation
	// on them (winkube audit).
	FamilyAudit
	// FamilyDoctor entries are the causes winkube doctor tells a stuck pod
	// by; they have no severity of their own.
	FamilyDoctor
)

// Families lists every family, in catalogue order.
var Families = []Family{Lint, FamilyNodeConfig, FamilyAudit, FamilyDoctor}

func (f Family) String() string {
	switch f {
	case Lint:
		return "lint"
	case FamilyNodeConfig:
		return "node-config"
	case FamilyAudit:
		return "audit"
	case FamilyDoctor:
		return "doctor"
	}
	return fmt.Sprintf("family(%d)", int(f))
}

// ParseFamily reads "lint", "node-config", "audit" or "doctor".
func ParseFamily(s string) (Family, error) {
	for _, f := range Families {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown family %q: want lint, node-config, audit or doctor", s)
}

// MarshalText writes the family's name.
func (f Family) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads a family name.
func (f *Family) UnmarshalText(b []byte) error {
	v, err := ParseFamily(string(b))
	*f = v
	return err
}
