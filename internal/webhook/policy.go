package webhook

import (
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/config"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// policy is a loaded config compiled for requests. It is never modified; a
// reload swaps in a new one.
type policy struct {
	source   string // the config file, or "defaults"
	mode     Mode
	include  map[string]bool // empty: every namespace
	exclude  map[string]bool
	selector labels.Selector // nil: every object
	// checkControlled rechecks pods whose controller's template was checked.
	checkControlled bool
	engine          engine.Options
	rules           map[string]*rule.Rule
	runtimeClasses  map[string]bool
}

// defaultConfig is what the webhook runs without a config file.
func defaultConfig() *WebhookConfig {
	return &WebhookConfig{APIVersion: config.APIVersion, Kind: ConfigKind}
}

// compile turns a validated config into a policy.
func compile(source string, c *WebhookConfig, extra []*rule.Rule) (*policy, error) {
	p := &policy{source: source, mode: c.mode(), include: set(nil), exclude: set(c.excluded()),
		checkControlled: c.ControlledPods == CheckControlled, rules: map[string]*rule.Rule{}, runtimeClasses: map[string]bool{}}
	if c.Namespaces != nil {
		p.include = set(c.Namespaces.Include)
	}
	if c.ObjectSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(c.ObjectSelector)
		if err != nil {
			return nil, fmt.Errorf("objectSelector: %w", err)
		}
		if !sel.Empty() {
			p.selector = sel
		}
	}
	model := winsupport.Default()
	if c.KubernetesVersion != "" {
		v, err := winsupport.ParseVersion(c.KubernetesVersion)
		if err != nil {
			return nil, fmt.Errorf("kubernetesVersion: %w", err)
		}
		model = winsupport.ForVersion(v)
	}
	cl := c.Cluster
	if cl == nil {
		cl = cluster.Reference()
	}
	enabled := append(c.enabledRules(), extra...)
	for _, r := range enabled {
		p.rules[r.ID] = r
	}
	rcs := make([]*nodev1.RuntimeClass, len(c.RuntimeClasses))
	for i := range c.RuntimeClasses {
		rcs[i] = &c.RuntimeClasses[i]
		p.runtimeClasses[rcs[i].Name] = true
	}
	p.engine = engine.Options{Rules: enabled, Cluster: cl, Model: model, RuntimeClasses: rcs}
	return p, nil
}

func set(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// namespaceChecked reports whether objects of namespace ns are checked.
func (p *policy) namespaceChecked(ns string) bool {
	if p.exclude[ns] {
		return false
	}
	return len(p.include) == 0 || p.include[ns]
}

// selects reports whether the objectSelector matches any of the label
// sets (the new and, on UPDATE, the old object's), as the API server
// matches a registration's objectSelector.
func (p *policy) selects(sets ...map[string]string) bool {
	if p.selector == nil {
		return true
	}
	for _, l := range sets {
		if p.selector.Matches(labels.Set(l)) {
			return true
		}
	}
	return false
}
