package config

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// APIVersion and Kind identify a winkube config file.
const (
	APIVersion = "winkube.io/v1alpha1"
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

// Load reads and validates a config file, reporting every problem at once.
func Load(path string, known []*rule.Rule) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config %s: %w", path, err)
	}
	c := &Config{}
	if err := manifest.DecodeStrict(path, data, c); err != nil {
		return nil, err
	}
	if err := c.Validate(known); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Validate checks the config against the known rules.
func (c *Config) Validate(known []*rule.Rule) error {
	var errs []error
	if c.APIVersion != APIVersion {
		errs = append(errs, fmt.Errorf("apiVersion: must be %s, got %q", APIVersion, c.APIVersion))
	}
	if c.Kind != Kind {
		errs = append(errs, fmt.Errorf("kind: must be %s, got %q", Kind, c.Kind))
	}
	if c.KubernetesVersion != "" {
		if _, err := winsupport.ParseVersion(c.KubernetesVersion); err != nil {
			errs = append(errs, fmt.Errorf("kubernetesVersion: %w", err))
		}
	}
	ids := map[string]bool{}
	for _, r := range known {
		ids[r.ID] = true
	}
	check := func(field, id string) {
		if !ids[id] {
			errs = append(errs, fmt.Errorf("%s: unknown rule %q (winkube rules lists them)", field, id))
		}
	}
	for _, id := range c.Rules.Disable {
		check("rules.disable", id)
	}
	for _, id := range c.Rules.Enable {
		check("rules.enable", id)
	}
	for _, id := range sortedKeys(c.Rules.Severity) {
		check("rules.severity", id)
		if _, err := rule.ParseSeverity(c.Rules.Severity[id]); err != nil {
			errs = append(errs, fmt.Errorf("rules.severity[%s]: %w", id, err))
		}
	}
	if c.Cluster != nil {
		if err := c.Cluster.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("cluster: %w", err))
		}
	}
	return errors.Join(errs...)
}

// Apply returns the rules the config enables, as copies carrying the
// configured severities. The suite is not modified.
func (c *Config) Apply(suite []*rule.Rule) []*rule.Rule {
	if c == nil {
		return suite
	}
	off := map[string]bool{}
	for _, id := range c.Rules.Disable {
		off[id] = true
	}
	for _, id := range c.Rules.Enable {
		delete(off, id)
	}
	var out []*rule.Rule
	for _, r := range suite {
		if off[r.ID] {
			continue
		}
		if s, ok := c.Rules.Severity[r.ID]; ok {
			cp := *r
			cp.Severity, _ = rule.ParseSeverity(s)
			r = &cp
		}
		out = append(out, r)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
