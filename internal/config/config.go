package config

import (
	"fmt"
	"sort"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// APIVersion and Kind identify a winkube config file.
const (
	APIVersion = manifest.APIVersion
	Kind       = "Config"
	// FileName is the config file lint looks for in the working folder.
	FileName = ".winkube.yaml"
)

// Config is the decoded .winkube.yaml.
type Config struct {
	APIVersion        string           `json:"apiVersion"`
	Kind              string           `json:"kind"`
	KubernetesVersion string           `json:"kubernetesVersion,omitempty"`
	Rules             Rules            `json:"rules,omitempty"`
	Cluster           *cluster.Cluster `json:"cluster,omitempty"`
}

// Rules turns rules off and on and overrides severities.
type Rules struct {
	Disable  []string          `json:"disable,omitempty"`
	Enable   []string          `json:"enable,omitempty"`
	Severity map[string]string `json:"severity,omitempty"`
}

// Load reads and validates a config file, reporting every problem at
// once, each at its file:line:col.
func Load(path string, known []*rule.Rule) (*Config, error) {
	c := &Config{}
	if err := manifest.LoadFile(path, c, func() []manifest.Problem { return c.Problems(known) }); err != nil {
		return nil, err
	}
	return c, nil
}

// Validate checks the config against the known rules.
func (c *Config) Validate(known []*rule.Rule) error {
	return manifest.ProblemsError(c.Problems(known))
}

// Problems are the config's problems, at paths from the file's root.
func (c *Config) Problems(known []*rule.Rule) []manifest.Problem {
	var ps []manifest.Problem
	add := func(path, format string, args ...any) { ps = append(ps, manifest.Problemf(path, format, args...)) }
	if c.APIVersion != APIVersion {
		add("apiVersion", "must be %s, got %q", APIVersion, c.APIVersion)
	}
	if c.Kind != Kind {
		add("kind", "must be %s, got %q", Kind, c.Kind)
	}
	return append(ps, SharedProblems(c.KubernetesVersion, c.Rules, c.Cluster, known)...)
}

// SharedProblems checks the fields every versioned winkube config has
// (.winkube.yaml, the webhook's config): kubernetesVersion, rules and
// cluster.
func SharedProblems(version string, r Rules, c *cluster.Cluster, known []*rule.Rule) []manifest.Problem {
	var ps []manifest.Problem
	if version != "" {
		if _, err := winsupport.ParseVersion(version); err != nil {
			ps = append(ps, manifest.Problemf("kubernetesVersion", "%v", err))
		}
	}
	ps = append(ps, r.Problems(known)...)
	if c != nil {
		ps = append(ps, manifest.Under("cluster", c.Problems())...)
	}
	return ps
}

// Problems checks the rule IDs and severities against the known rules, at
// paths under rules.
func (r Rules) Problems(known []*rule.Rule) []manifest.Problem {
	var ps []manifest.Problem
	ids := map[string]bool{}
	graded := map[string]bool{} // rules a severity applies to
	for _, r := range known {
		ids[r.ID] = true
		graded[r.ID] = graded[r.ID] || r.Family != rule.FamilyDoctor
	}
	check := func(path, id string) {
		if !ids[id] {
			ps = append(ps, manifest.Problemf(path, "unknown rule %q (winkube rules lists them)", id))
		}
	}
	for i, id := range r.Disable {
		check(fmt.Sprintf("rules.disable[%d]", i), id)
	}
	for i, id := range r.Enable {
		check(fmt.Sprintf("rules.enable[%d]", i), id)
	}
	for _, id := range sortedKeys(r.Severity) {
		path := fmt.Sprintf("rules.severity[%s]", id)
		check(path, id)
		if _, err := rule.ParseSeverity(r.Severity[id]); err != nil {
			ps = append(ps, manifest.Problemf(path, "%v", err))
		}
		if ids[id] && !graded[id] {
			ps = append(ps, manifest.Problemf(path, "%q is a doctor cause, which has no severity: disable it instead", id))
		}
	}
	return ps
}

// Settings are the config's rule settings, resolved once: what every
// front-end applies (rule.Settings.Apply) to the rules of its family. A nil
// config has nil settings, which change nothing.
func (c *Config) Settings() *rule.Settings {
	if c == nil {
		return nil
	}
	s := &rule.Settings{Off: map[string]bool{}, Severity: map[string]rule.Severity{}}
	for _, id := range c.Rules.Disable {
		s.Off[id] = true
	}
	for _, id := range c.Rules.Enable {
		delete(s.Off, id)
	}
	for id, v := range c.Rules.Severity {
		// Every finding of the rule, not only those at its default.
		s.Severity[id], _ = rule.ParseSeverity(v)
	}
	return s
}

// Apply returns the rules the config enables, as copies carrying the
// configured severities (Severity and Configured, which overrides the
// severities a rule gives single findings). The suite is not modified.
func (c *Config) Apply(suite []*rule.Rule) []*rule.Rule {
	return c.Settings().ApplyAll(suite)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
