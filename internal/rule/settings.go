package rule

// Settings are what a config says of rules, of any family: which are off,
// and the severity the others report at. Every front-end applies them
// through Apply, so a rule disabled or re-graded once is disabled or
// re-graded in every command that reports it. A nil *Settings changes
// nothing.
type Settings struct {
	Off      map[string]bool
	Severity map[string]Severity
}

// Apply returns r as the settings make it: nil when it is off, a copy
// carrying the configured severity (Severity and Configured, which
// overrides the severities a rule gives single findings), or r itself.
func (s *Settings) Apply(r *Rule) *Rule {
	if s == nil {
		return r
	}
	if s.Off[r.ID] {
		return nil
	}
	if sev, ok := s.Severity[r.ID]; ok && sev != Unset {
		cp := *r
		cp.Severity, cp.Configured = sev, sev
		return &cp
	}
	return r
}

// ApplyAll returns the rules the settings leave on, as Apply makes them,
// in the order given. The rules given are not modified.
func (s *Settings) ApplyAll(rs []*Rule) []*Rule {
	if s == nil {
		return rs
	}
	var out []*Rule
	for _, r := range rs {
		if a := s.Apply(r); a != nil {
			out = append(out, a)
		}
	}
	return out
}
