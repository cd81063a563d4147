package simulate

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// ParseSchedulerConfig reads a KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1, as kube-scheduler's --config takes it)
// and returns the scoring of the profile named schedulerName ("" for
// default-scheduler). Unknown fields are errors, as in kube-scheduler;
// so are score plugins winkube does not model, since placement would
// then be guessed.
func ParseSchedulerConfig(data []byte, schedulerName string) (*Profile, error) {
	var cfg schedv1.KubeSchedulerConfiguration
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return nil, fmt.Errorf("decoding KubeSchedulerConfiguration: %w", err)
	}
	if cfg.APIVersion != schedv1.SchemeGroupVersion.String() || cfg.Kind != "KubeSchedulerConfiguration" {
		return nil, fmt.Errorf("apiVersion %q, kind %q: want %s, KubeSchedulerConfiguration", cfg.APIVersion, cfg.Kind, schedv1.SchemeGroupVersion)
	}
	if schedulerName == "" {
		schedulerName = corev1.DefaultSchedulerName
	}
	prof := DefaultProfile()
	if cfg.PercentageOfNodesToScore != nil {
		prof.PercentageOfNodesToScore = *cfg.PercentageOfNodesToScore
	}
	if cfg.Parallelism != nil {
		prof.Parallelism = *cfg.Parallelism
	}
	if len(cfg.Profiles) == 0 {
		if schedulerName != corev1.DefaultSchedulerName {
			return nil, fmt.Errorf("no profile named %q: the configuration has only the default profile", schedulerName)
		}
		return prof, nil
	}
	var names []string
	for _, p := range cfg.Profiles {
		name := corev1.DefaultSchedulerName
		if p.SchedulerName != nil {
			name = *p.SchedulerName
		}
		names = append(names, name)
		if name != schedulerName {
			continue
		}
		prof.Name = name
		if p.PercentageOfNodesToScore != nil {
			prof.PercentageOfNodesToScore = *p.PercentageOfNodesToScore
		}
		var errs []error
		if p.Plugins != nil {
			errs = append(errs, prof.applyPlugins(p.Plugins)...)
		}
		for _, pc := range p.PluginConfig {
			errs = append(errs, prof.applyArgs(pc))
		}
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("profile %s: %w", name, err)
		}
		return prof, nil
	}
	return nil, fmt.Errorf("no profile named %q (profiles: %s)", schedulerName, strings.Join(names, ", "))
}

// weights maps score plugin names to the profile's weight fields.
func (p *Profile) weights() map[string]*int64 {
	return map[string]*int64{
		"TaintToleration": &p.TaintToleration, "NodeAffinity": &p.NodeAffinity,
		"NodeResourcesFit": &p.NodeResourcesFit, "PodTopologySpread": &p.PodTopologySpread,
		"InterPodAffinity": &p.InterPodAffinity, "NodeResourcesBalancedAllocation": &p.BalancedAllocation,
		"ImageLocality": &p.ImageLocality,
	}
}

// unscored are default plugins that score nothing winkube models (their
// scores are the same on every node for the pods it simulates), so
// naming them in the score set is not an error.
var unscored = []string{"VolumeBinding", "DynamicResources"}

// applyPlugins applies the multiPoint and score plugin sets: disabled
// first ("*" disables every default), then enabled with their weights
// (0 meaning 1, as the framework defaults it).
func (p *Profile) applyPlugins(pl *schedv1.Plugins) []error {
	w := p.weights()
	var errs []error
	for _, set := range []schedv1.PluginSet{pl.MultiPoint, pl.Score} {
		for _, d := range set.Disabled {
			if d.Name == "*" {
				for _, v := range w {
					*v = 0
				}
				continue
			}
			if v, ok := w[d.Name]; ok {
				*v = 0
			}
		}
	}
	for i, set := range []schedv1.PluginSet{pl.MultiPoint, pl.Score} {
		for _, e := range set.Enabled {
			v, ok := w[e.Name]
			if !ok {
				if i == 1 && !slices.Contains(unscored, e.Name) {
					errs = append(errs, fmt.Errorf("score plugin %s is not modelled by winkube: its scores cannot be predicted", e.Name))
				}
				continue
			}
			weight := int64(1)
			if e.Weight != nil && *e.Weight != 0 {
				weight = int64(*e.Weight)
			}
			*v = weight
		}
	}
	for _, d := range pl.Filter.Disabled {
		errs = append(errs, fmt.Errorf("filter plugin %s is disabled: winkube models the default filters only", d.Name))
	}
	return errs
}

// applyArgs reads the arguments of the plugins whose scoring it changes.
func (p *Profile) applyArgs(pc schedv1.PluginConfig) error {
	raw := pc.Args.Raw
	if len(raw) == 0 {
		return nil
	}
	decode := func(into any) error {
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.DisallowUnknownFields()
		if err := d.Decode(into); err != nil {
			return fmt.Errorf("pluginConfig %s: %w", pc.Name, err)
		}
		return nil
	}
	switch pc.Name {
	case "NodeResourcesFit":
		var a schedv1.NodeResourcesFitArgs
		if err := decode(&a); err != nil {
			return err
		}
		if s := a.ScoringStrategy; s != nil {
			if s.Type != "" {
				p.Fit.Type = string(s.Type)
			}
			if len(s.Resources) > 0 {
				p.Fit.Resources = resourceWeights(s.Resources)
			}
			if r := s.RequestedToCapacityRatio; r != nil {
				p.Fit.Shape = nil
				for _, pt := range r.Shape {
					p.Fit.Shape = append(p.Fit.Shape, ShapePoint{Utilization: int64(pt.Utilization), Score: int64(pt.Score)})
				}
			}
			if p.Fit.Type == RequestedToCapacityRatio && len(p.Fit.Shape) == 0 {
				return errors.New("pluginConfig NodeResourcesFit: RequestedToCapacityRatio needs a shape")
			}
		}
	case "PodTopologySpread":
		var a schedv1.PodTopologySpreadArgs
		if err := decode(&a); err != nil {
			return err
		}
		if a.DefaultingType == schedv1.ListDefaulting {
			p.DefaultConstraints, p.SystemDefaulted = a.DefaultConstraints, false
		}
	case "InterPodAffinity":
		var a schedv1.InterPodAffinityArgs
		if err := decode(&a); err != nil {
			return err
		}
		if a.HardPodAffinityWeight != nil {
			p.HardPodAffinityWeight = int64(*a.HardPodAffinityWeight)
		}
		p.IgnorePreferredTermsOfExistingPods = a.IgnorePreferredTermsOfExistingPods
	case "NodeResourcesBalancedAllocation":
		var a schedv1.NodeResourcesBalancedAllocationArgs
		if err := decode(&a); err != nil {
			return err
		}
		for _, r := range a.Resources {
			if r.Name != "cpu" && r.Name != "memory" {
				return fmt.Errorf("pluginConfig NodeResourcesBalancedAllocation: resource %s is not modelled (cpu and memory are)", r.Name)
			}
		}
	}
	return nil
}

func resourceWeights(in []schedv1.ResourceSpec) []ResourceWeight {
	out := make([]ResourceWeight, 0, len(in))
	for _, r := range in {
		w := r.Weight
		if w == 0 {
			w = 1
		}
		out = append(out, ResourceWeight{Name: r.Name, Weight: w})
	}
	return out
}
