package webhook

import (
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/config"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

// ConfigKind is the kind of the webhook's config file; its apiVersion is
// config.APIVersion (winkube.io/v1alpha1).
const ConfigKind = "WebhookConfig"

// Mode says what the webhook does with findings.
type Mode string

const (
	// Enforce applies safe fixes on /mutate and denies on /validate what
	// still has error findings; warnings come back as warnings.
	Enforce Mode = "enforce"
	// Warn changes and denies nothing: every finding, errors included,
	// comes back as a warning from /validate; /mutate returns no patch.
	Warn Mode = "warn"
	// Mutate applies safe fixes like Enforce but denies nothing: what is
	// left, errors included, comes back as warnings.
	Mutate Mode = "mutate"
)

// Controlled-pod policies.
const (
	SkipControlled  = "skip"
	CheckControlled = "check"
)

// WebhookConfig is the versioned config file of the webhook.
type WebhookConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Mode       Mode   `json:"mode,omitempty"` // default enforce
	// Namespaces limits the namespaces checked; nil means everything but
	// kube-system.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// ObjectSelector matches the object's own labels (on UPDATE, old or
	// new), as a webhook registration's objectSelector does.
	ObjectSelector    *metav1.LabelSelector `json:"objectSelector,omitempty"`
	KubernetesVersion string                `json:"kubernetesVersion,omitempty"`
	Rules             config.Rules          `json:"rules,omitempty"`
	// Cluster is the cluster profile; nil means cluster.Reference().
	Cluster *cluster.Cluster `json:"cluster,omitempty"`
	// ControlledPods says whether pods created by a ReplicaSet,
	// StatefulSet, DaemonSet or Job are checked again: skip (default) or
	// check.
	ControlledPods string `json:"controlledPods,omitempty"`
	// RuntimeClasses are the cluster's RuntimeClasses, so that workload
	// templates naming one are checked with its scheduling merged in. The
	// webhook reads nothing from the cluster.
	RuntimeClasses []nodev1.RuntimeClass `json:"runtimeClasses,omitempty"`
}

// Namespaces selects namespaces by name. Exclude wins over Include; an
// empty Include means every namespace.
type Namespaces struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// DefaultExcluded are the namespaces left alone when the config does not
// say.
var DefaultExcluded = []string{"kube-system"}

// LoadConfig reads and validates a webhook config file, reporting every
// problem at once, each at its file:line:col. known is as Options.Known.
func LoadConfig(path string, known []*rule.Rule) (*WebhookConfig, error) {
	c := &WebhookConfig{}
	if err := manifest.LoadFile(path, c, func() []manifest.Problem { return c.problems(known) }); err != nil {
		return nil, err
	}
	return c, nil
}

// parseConfig decodes a config that names lint rules only.
func parseConfig(path string, data []byte) (*WebhookConfig, error) {
	return decodeConfig(path, data, nil)
}

// decodeConfig decodes and validates a config; known is as Options.Known.
func decodeConfig(path string, data []byte, known []*rule.Rule) (*WebhookConfig, error) {
	c := &WebhookConfig{}
	if err := manifest.DecodeFile(path, data, c, func() []manifest.Problem { return c.problems(known) }); err != nil {
		return nil, err
	}
	return c, nil
}

// reader is the webhook as a reader of configs: it reports lint rules.
var reader = config.Reader{Name: "the webhook", Reports: []rule.Family{rule.Lint}}

// problems checks the config; paths are API-style from the file's root.
func (c *WebhookConfig) problems(known []*rule.Rule) []manifest.Problem {
	if known == nil {
		known = rules.Suite()
	}
	var ps []manifest.Problem
	add := func(path, format string, args ...any) { ps = append(ps, manifest.Problemf(path, format, args...)) }
	if c.APIVersion != config.APIVersion {
		add("apiVersion", "must be %s, got %q", config.APIVersion, c.APIVersion)
	}
	if c.Kind != ConfigKind {
		add("kind", "must be %s, got %q", ConfigKind, c.Kind)
	}
	switch c.Mode {
	case "", Enforce, Warn, Mutate:
	default:
		add("mode", "must be enforce, warn or mutate, got %q", c.Mode)
	}
	switch c.ControlledPods {
	case "", SkipControlled, CheckControlled:
	default:
		add("controlledPods", "must be skip or check, got %q", c.ControlledPods)
	}
	if c.Namespaces != nil {
		for field, names := range map[string][]string{"namespaces.include": c.Namespaces.Include, "namespaces.exclude": c.Namespaces.Exclude} {
			for i, n := range names {
				for _, msg := range validation.IsDNS1123Label(n) {
					add(fmt.Sprintf("%s[%d]", field, i), "%q is not a namespace name: %s", n, msg)
				}
			}
		}
	}
	if c.ObjectSelector != nil {
		if _, err := metav1.LabelSelectorAsSelector(c.ObjectSelector); err != nil {
			add("objectSelector", "%v", err)
		}
	}
	for i, rc := range c.RuntimeClasses {
		if rc.Name == "" {
			add(fmt.Sprintf("runtimeClasses[%d].metadata.name", i), "required")
		}
		if rc.Handler == "" {
			add(fmt.Sprintf("runtimeClasses[%d].handler", i), "required")
		}
	}
	// The shared parts are checked as lint checks .winkube.yaml.
	return append(ps, config.SharedProblemsFor(c.KubernetesVersion, c.Rules, c.Cluster, known, reader)...)
}

// mode returns the configured mode, defaulted.
func (c *WebhookConfig) mode() Mode {
	if c.Mode == "" {
		return Enforce
	}
	return c.Mode
}

// excluded returns the excluded namespaces, defaulted.
func (c *WebhookConfig) excluded() []string {
	if c.Namespaces == nil {
		return DefaultExcluded
	}
	return c.Namespaces.Exclude
}

// enabledRules are the rules this config runs: the suite's, with the
// config's overrides.
func (c *WebhookConfig) enabledRules() []*rule.Rule {
	shared := &config.Config{Rules: c.Rules}
	var out []*rule.Rule
	for _, r := range shared.Apply(rules.Suite()) {
		// Corpus rules look across objects; admission sees one.
		if r.Corpus == nil && r.ID != engine.LoadErrorID {
			out = append(out, r)
		}
	}
	return out
}
