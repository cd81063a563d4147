package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"

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
	return SharedProblemsFor(version, r, c, known, Reader{})
}

// Reader is a front-end that reads a config and the families of rules it
// reports. A config it reads may name any rule of the catalogue (known),
// as .winkube.yaml does; a rule of a family the front-end does not report
// is refused, naming the family, rather than accepted and ignored.
type Reader struct {
	Name    string        // "the webhook"
	Reports []rule.Family // none: every family
}

func (f Reader) reports(fam rule.Family) bool {
	return len(f.Reports) == 0 || slices.Contains(f.Reports, fam)
}

// SharedProblemsFor is SharedProblems for a config that front-end reads.
func SharedProblemsFor(version string, r Rules, c *cluster.Cluster, known []*rule.Rule, front Reader) []manifest.Problem {
	var ps []manifest.Problem
	if version != "" {
		if _, err := winsupport.ParseVersion(version); err != nil {
			ps = append(ps, manifest.Problemf("kubernetesVersion", "%v", err))
		}
	}
	ps = append(ps, r.Problems(known)...)
	ps = append(ps, r.unreported(known, front)...)
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
	r.each(func(path, id string, severity bool) {
		if !ids[id] {
			ps = append(ps, manifest.Problemf(path, "unknown rule %q (winkube rules lists them)", id))
		}
		if !severity {
			return
		}
		if _, err := rule.ParseSeverity(r.Severity[id]); err != nil {
			ps = append(ps, manifest.Problemf(path, "%v", err))
		}
		if ids[id] && !graded[id] {
			ps = append(ps, manifest.Problemf(path, "%q is a doctor cause, which has no severity: disable it instead", id))
		}
	})
	return ps
}

// each calls fn with every rule ID the settings name and its path, in the
// file's order: disable, enable, then severity (sorted by ID).
func (r Rules) each(fn func(path, id string, severity bool)) {
	for i, id := range r.Disable {
		fn(fmt.Sprintf("rules.disable[%d]", i), id, false)
	}
	for i, id := range r.Enable {
		fn(fmt.Sprintf("rules.enable[%d]", i), id, false)
	}
	for _, id := range sortedKeys(r.Severity) {
		fn(fmt.Sprintf("rules.severity[%s]", id), id, true)
	}
}

// unreported refuses the IDs of rules the front-end does not report.
func (r Rules) unreported(known []*rule.Rule, front Reader) []manifest.Problem {
	if len(front.Reports) == 0 {
		return nil
	}
	family := map[string]rule.Family{}
	for _, k := range known {
		family[k.ID] = k.Family
	}
	var ps []manifest.Problem
	r.each(func(path, id string, _ bool) {
		if fam, ok := family[id]; ok && !front.reports(fam) {
			ps = append(ps, manifest.Problemf(path, "%q is %s rule, which %s does not report (it reports %s rules): remove it here; .winkube.yaml configures it for %s",
				id, withArticle(fam.String()), front.Name, families(front.Reports), commandOf[fam]))
		}
	})
	return ps
}

func withArticle(s string) string {
	if strings.ContainsAny(s[:1], "aeiou") {
		return "an " + s
	}
	return "a " + s
}

func families(fs []rule.Family) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.String()
	}
	return strings.Join(names, " and ")
}

// commandOf names the command that reports each family's rules.
var commandOf = map[rule.Family]string{
	rule.Lint:             "winkube lint",
	rule.FamilyNodeConfig: "winkube nodeconfig validate",
	rule.FamilyAudit:      "winkube audit",
	rule.FamilyDoctor:     "winkube doctor",
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
