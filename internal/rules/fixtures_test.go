package rules

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// Fixtures live in testdata/<rule-id>/*.yaml. A comment
//
//	# want "regexp" ["regexp" ...]
//
// on a line expects one finding of the rule on that line per regexp, each
// matching its message. Every other finding of the rule is a failure. Two
// header comments choose the context:
//
//	# cluster: reference | assumed | gke | openshift | aks | multi-build | ws2019 | untainted | linux-only | ws2025
//	# kubernetes-version: 1.30
var (
	wantRE    = regexp.MustCompile(`#\s*want\s+(".*)$`)
	quotedRE  = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	clusterRE = regexp.MustCompile(`^#\s*cluster:\s*(\S+)`)
	versionRE = regexp.MustCompile(`^#\s*kubernetes-version:\s*(\S+)`)
)

func pool(name, os, build string, taints ...corev1.Taint) cluster.Pool {
	return cluster.Pool{Name: name, Count: 2, OS: os, WindowsBuild: build, CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110, Taints: taints}
}

// testClusters are the cluster profiles fixtures can choose.
var testClusters = map[string]func() *cluster.Cluster{
	"reference": cluster.Reference,
	"assumed":   cluster.Assumed,
	"gke":       func() *cluster.Cluster { c, _ := cluster.Named("gke"); return c },
	"openshift": func() *cluster.Cluster { c, _ := cluster.Named("openshift"); return c },
	"aks":       func() *cluster.Cluster { c, _ := cluster.Named("aks"); return c },
	"multi-build": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("win2019", "windows", "10.0.17763", cluster.WindowsTaint), pool("win2022", "windows", "10.0.20348", cluster.WindowsTaint)}}
	},
	"ws2019": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("win2019", "windows", "10.0.17763", cluster.WindowsTaint)}}
	},
	"ws2025": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("win2025", "windows", "10.0.26100", cluster.WindowsTaint)}}
	},
	"untainted": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", ""), pool("windows", "windows", "10.0.20348")}}
	},
	"linux-only": func() *cluster.Cluster {
		return &cluster.Cluster{Pools: []cluster.Pool{pool("linux", "linux", "")}}
	},
}

type want struct {
	line int
	re   *regexp.Regexp
	used bool
}

// fixture reads a fixture's header and wants.
func fixture(t *testing.T, path string) (c *cluster.Cluster, m winsupport.Model, wants []*want) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, m = cluster.Reference(), winsupport.Default()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if g := clusterRE.FindStringSubmatch(text); g != nil {
			mk, ok := testClusters[g[1]]
			if !ok {
				t.Fatalf("%s:%d: unknown test cluster %q", path, line, g[1])
			}
			c = mk()
		}
		if g := versionRE.FindStringSubmatch(text); g != nil {
			v, err := winsupport.ParseVersion(g[1])
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			m = winsupport.ForVersion(v)
		}
		if g := wantRE.FindStringSubmatch(text); g != nil {
			for _, q := range quotedRE.FindAllStringSubmatch(g[1], -1) {
				pat, err := strconv.Unquote(q[0])
				if err != nil {
					t.Fatalf("%s:%d: want must be a Go string literal: %v", path, line, err)
				}
				re, err := regexp.Compile(pat)
				if err != nil {
					t.Fatalf("%s:%d: bad want regexp: %v", path, line, err)
				}
				wants = append(wants, &want{line: line, re: re})
			}
		}
	}
	return c, m, wants
}

// checkFixture runs one rule over one fixture file and compares findings
// with the wants.
func checkFixture(t *testing.T, r *rule.Rule, path string) (fired bool) {
	t.Helper()
	c, m, wants := fixture(t, path)
	rs := []*rule.Rule{LoadError}
	if r != LoadError {
		rs = append(rs, r)
	}
	ins, errs := manifest.Inputs([]string{path}, nil)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	res, err := engine.Run(context.Background(), ins, engine.Options{Rules: rs, Cluster: c, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Suppressed {
			continue
		}
		if f.Rule != r.ID && f.Rule != LoadError.ID {
			continue
		}
		matched := false
		for _, w := range wants {
			if !w.used && w.line == f.Line && w.re.MatchString(f.Message) {
				w.used, matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s:%d:%d: unexpected %s finding: %s", path, f.Line, f.Column, f.Rule, f.Message)
		}
	}
	for _, w := range wants {
		if !w.used {
			t.Errorf("%s:%d: no finding matched %q", path, w.line, w.re)
		}
	}
	return len(wants) > 0
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, r := range Suite() {
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			files, _ := filepath.Glob(filepath.Join("testdata", r.ID, "*.yaml"))
			var firing, quiet int
			for _, f := range files {
				if checkFixture(t, r, f) {
					firing++
				} else {
					quiet++
				}
			}
			if firing == 0 || quiet == 0 {
				t.Errorf("rule %s needs at least one firing and one non-firing fixture in testdata/%s (has %d and %d)", r.ID, r.ID, firing, quiet)
			}
		})
	}
}
