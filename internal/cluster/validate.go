package cluster

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/winkube/winkube/internal/manifest"
)

var buildRE = regexp.MustCompile(`^10\.0\.\d{5}$`)

// Validate reports every problem with the cluster at once.
func (c *Cluster) Validate() error {
	return manifest.ProblemsError(c.Problems())
}

// Problems are the cluster's problems, at paths from the cluster's root,
// for a file loader to locate.
func (c *Cluster) Problems() []manifest.Problem {
	var errs []manifest.Problem
	add := func(path, format string, args ...any) {
		errs = append(errs, manifest.Problemf(path, format, args...))
	}
	if len(c.Pools) == 0 {
		add("pools", "at least one pool is required")
	}
	if c.ClusterDomain != "" {
		for _, msg := range validation.IsDNS1123Subdomain(c.Domain()) {
			add("clusterDomain", "%q is not a DNS domain: %s", c.ClusterDomain, msg)
		}
	}
	names := map[string]bool{}
	total := 0
	for i := range c.Pools {
		p := &c.Pools[i]
		at := fmt.Sprintf("pools[%d]", i)
		switch {
		case p.Name == "":
			add(at+".name", "required")
		case names[p.Name]:
			add(at+".name", "duplicate pool name %q", p.Name)
		default:
			for _, msg := range validation.IsDNS1123Label(p.Name) {
				add(at+".name", "%q is not usable in node names: %s", p.Name, msg)
			}
		}
		names[p.Name] = true
		switch {
		case p.Count < 0:
			add(at+".count", "must not be negative")
		case p.Count > MaxNodes:
			add(at+".count", "%d is over the %d nodes a Kubernetes cluster supports (kubernetes.io/docs/setup/best-practices/cluster-large/); the simulator models each node", p.Count, MaxNodes)
		}
		total += max(p.Count, 0)
		switch p.OS {
		case "linux":
			if p.WindowsBuild != "" {
				add(at+".windowsBuild", "only Windows pools have a build")
			}
		case "windows":
			if p.WindowsBuild != "" && !buildRE.MatchString(p.WindowsBuild) {
				add(at+".windowsBuild", "%q is not a build like 10.0.20348", p.WindowsBuild)
			}
		default:
			add(at+".os", "must be linux or windows, got %q", p.OS)
		}
		if p.CNI != "" {
			if _, ok := CNIOf(p.CNI); !ok {
				add(at+".cni", "unknown CNI %q (known: %s); leave it empty when the CNI is another", p.CNI, knownCNINames())
			}
		}
		if p.NetworkMode != "" && !knownMode(p.NetworkMode) {
			add(at+".networkMode", "unknown network mode %q (known: %s)", p.NetworkMode, strings.Join(networkModes, ", "))
		}
		errs = append(errs, p.resourceProblems(at)...)
		for j, t := range p.Taints {
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				add(fmt.Sprintf("%s.taints[%d].effect", at, j), "must be NoSchedule, PreferNoSchedule or NoExecute, got %q", t.Effect)
			}
			if t.Key == "" {
				add(fmt.Sprintf("%s.taints[%d].key", at, j), "required")
			}
		}
		for j, z := range p.Zones {
			if z == "" {
				add(fmt.Sprintf("%s.zones[%d]", at, j), "must not be empty")
			}
		}
	}
	if total > MaxNodes && len(c.Pools) > 1 {
		add("pools", "%d nodes in all is over the %d nodes a Kubernetes cluster supports (kubernetes.io/docs/setup/best-practices/cluster-large/)", total, MaxNodes)
	}
	return errs
}

// MaxNodes is the largest cluster Kubernetes supports ("No more than 5,000
// nodes", kubernetes.io/docs/setup/best-practices/cluster-large/). The
// simulator materialises every node, so a count past it is refused before
// any is built: 100000000 in a 300-byte file otherwise ran to the OOM
// killer.
const MaxNodes = 5000

// resourceProblems checks the instance size and what is reserved from it.
func (p *Pool) resourceProblems(at string) []manifest.Problem {
	var errs []manifest.Problem
	if p.Count > 0 && p.CPU.Sign() <= 0 {
		errs = append(errs, manifest.Problem{Path: at + ".cpu", Msg: "required: the CPUs of one node, e.g. \"4\""})
	}
	if p.Count > 0 && p.Memory.Sign() <= 0 {
		errs = append(errs, manifest.Problem{Path: at + ".memory", Msg: "required: the memory of one node, e.g. 16Gi"})
	}
	if p.MaxPods < 0 {
		errs = append(errs, manifest.Problem{Path: at + ".maxPods", Msg: "must not be negative"})
	}
	capacity := p.Capacity()
	for _, name := range sortedNames(p.Reserved) {
		q := p.Reserved[name]
		c, ok := capacity[name]
		switch {
		case q.Sign() < 0:
			errs = append(errs, manifest.Problem{Path: fmt.Sprintf("%s.reserved[%s]", at, name), Msg: "must not be negative"})
		case !ok:
			errs = append(errs, manifest.Problem{Path: fmt.Sprintf("%s.reserved[%s]", at, name), Msg: "the node has no such resource"})
		case p.Count > 0 && q.Cmp(c) >= 0:
			errs = append(errs, manifest.Problemf(fmt.Sprintf("%s.reserved[%s]", at, name),
				"%s reserves all of the node's %s", q.String(), c.String()))
		}
	}
	return errs
}
