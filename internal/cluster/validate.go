package cluster

import (
	"errors"
	"fmt"
	"regexp"

	corev1 "k8s.io/api/core/v1"
)

var buildRE = regexp.MustCompile(`^10\.0\.\d{5}$`)

// Validate reports every problem with the cluster at once.
func (c *Cluster) Validate() error {
	var errs []error
	if len(c.Pools) == 0 {
		errs = append(errs, errors.New("pools: at least one pool is required"))
	}
	names := map[string]bool{}
	for i, p := range c.Pools {
		at := fmt.Sprintf("pools[%d]", i)
		if p.Name == "" {
			errs = append(errs, fmt.Errorf("%s.name: required", at))
		} else if names[p.Name] {
			errs = append(errs, fmt.Errorf("%s.name: duplicate pool name %q", at, p.Name))
		}
		names[p.Name] = true
		if p.Count < 0 {
			errs = append(errs, fmt.Errorf("%s.count: must not be negative", at))
		}
		switch p.OS {
		case "linux":
			if p.WindowsBuild != "" {
				errs = append(errs, fmt.Errorf("%s.windowsBuild: only Windows pools have a build", at))
			}
		case "windows":
			if p.WindowsBuild != "" && !buildRE.MatchString(p.WindowsBuild) {
				errs = append(errs, fmt.Errorf("%s.windowsBuild: %q is not a build like 10.0.20348", at, p.WindowsBuild))
			}
		default:
			errs = append(errs, fmt.Errorf("%s.os: must be linux or windows, got %q", at, p.OS))
		}
		for j, t := range p.Taints {
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				errs = append(errs, fmt.Errorf("%s.taints[%d].effect: must be NoSchedule, PreferNoSchedule or NoExecute, got %q", at, j, t.Effect))
			}
			if t.Key == "" {
				errs = append(errs, fmt.Errorf("%s.taints[%d].key: required", at, j))
			}
		}
	}
	return errors.Join(errs...)
}
