package policy

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

var (
	diffSeed    = flag.Uint64("seed", 0, "seed of TestPoliciesDecideAsLint's generated workloads and clusters (0: drawn from the clock and printed)")
	diffSeeded  = flag.Int("seeded", 450, "how many workloads TestPoliciesDecideAsLint generates from the seed")
	diffWorkers = flag.Int("diff-workers", 4, "concurrent dry-run creates of TestPoliciesDecideAsLint")
)

// TestPoliciesDecideAsLint is the differential test of issue 19: every
// workload of the rule fixtures, the real corpus, test/corpusgen and the
// seeded generator (gen_test.go), under every built-in cluster profile
// and the generated cluster files, is created with dryRun=All in a real
// kube-apiserver with the default export installed (enforce mode; each
// cluster's params ConfigMap in its own namespace). For every pair:
// denied exactly when lint reports an error of an exported rule, the
// denial naming that rule in lint's words; the warnings exactly lint's
// warnings of the exported rules, word for word. A disagreement writes a
// reproducer (object, cluster, lint's findings, the API server's answer)
// and names it.
func TestPoliciesDecideAsLint(t *testing.T) {
	seed := *diffSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with go test ./test/e2e/policy -run PoliciesDecideAsLint -args -seed %d)", seed, seed)
	m := winsupport.Default()

	clusters := genClusters(seed, 3)
	for _, name := range cluster.ProfileNames() {
		c, err := cluster.Named(name)
		if err != nil {
			t.Fatal(err)
		}
		clusters["profile-"+name] = c
	}
	names := slices.Sorted(maps.Keys(clusters))

	samples := fixtureSamplesAnyCluster(t)
	samples = append(samples, corpusSamples(t)...)
	samples = append(samples, generatedSamples(t, seed, 150)...)
	samples = append(samples, seededSamples(t, seed, *diffSeeded)...)

	s := startServer(t)
	const set = "winkube-diff"
	installSet(t, s, set, policy.Options{Rules: rules.Suite(), Model: m, Mode: policy.Enforce})
	covered := coveredRules(m)
	s.activate(t, set, names, clusters, covered, m)

	reproDir, err := os.MkdirTemp("", "winkube-policydiff-")
	if err != nil {
		t.Fatal(err)
	}
	var (
		pairs, rejected, outside   int
		denials, warned, disagreed int
		reported                   int
		fired                      = map[string]int{} // pairs in scope on which lint reports each rule
	)
	start := time.Now()
	s.judgeAll(t, set, samples, names, clusters, covered, m, *diffWorkers, func(p pair) {
		pairs++
		switch {
		case p.d.rejected:
			rejected++
		case p.d.problem != "":
			disagreed++
			if reported < 25 {
				reported++
				file := writeRepro(reproDir, disagreed, p.smp, p.cluster, clusters[p.cluster], p.fs, p.o, p.d.problem)
				t.Errorf("%s under %s: %s\n  reproducer: %s", p.smp.name, p.cluster, p.d.problem, file)
			}
		}
		if p.d.outside {
			outside++
		} else if !p.d.rejected {
			seen := map[string]bool{}
			for _, f := range p.fs {
				if !seen[f.Rule] {
					seen[f.Rule] = true
					fired[f.Rule]++
				}
			}
		}
		if p.d.denied {
			denials++
		}
		if p.d.warned {
			warned++
		}
	})
	t.Logf("%d object × cluster pairs (%d objects × %d clusters: %s) in %s; %d denied, %d with warnings; %d rejected by the API server's own validation before admission; %d out of the policies' scope; %d disagreements",
		pairs, len(samples), len(names), strings.Join(names, ", "), time.Since(start).Round(time.Second), denials, warned, rejected, outside, disagreed)
	var perRule []string
	for _, id := range slices.Sorted(maps.Keys(fired)) {
		perRule = append(perRule, fmt.Sprintf("%s %d", id, fired[id]))
	}
	t.Logf("pairs on which lint reports each exported rule: %s", strings.Join(perRule, ", "))
	if disagreed > 0 {
		t.Errorf("%d disagreements (seed %d); reproducers in %s", disagreed, seed, reproDir)
	} else {
		_ = os.RemoveAll(reproDir)
	}
	if pairs < 5000 {
		t.Errorf("only %d pairs compared, want at least 5,000", pairs)
	}
	if denials == 0 || warned == 0 {
		t.Errorf("nothing was denied (%d) or warned about (%d): the comparison compared nothing", denials, warned)
	}
}

// lintOf is lint's unsuppressed findings of the rules under the cluster.
func lintOf(obj *manifest.Object, rs []*rule.Rule, c *cluster.Cluster, m winsupport.Model) []rule.Finding {
	res := engine.Check([]*manifest.Object{obj}, engine.Options{Rules: rs, Cluster: c, Model: m})
	var out []rule.Finding
	for _, f := range res.Findings {
		if !f.Suppressed {
			out = append(out, f)
		}
	}
	return out
}

// activate creates a namespace of the policy set for each cluster, with
// its params, and waits until the policies there decide the canary as
// lint does: until its params are read, parameterNotFoundAction Deny
// answers, and the API server compiles each policy on its own.
func (s *server) activate(t *testing.T, set string, names []string, clusters map[string]*cluster.Cluster, covered []*rule.Rule, m winsupport.Model) {
	t.Helper()
	for _, n := range names {
		s.namespace(t, nsName(set, n), map[string]string{policiesLabel: set}, clusters[n], m)
	}
	canary := mustObject(t, windowsCanary)
	for _, n := range names {
		fs := lintOf(canary, covered, clusters[n], m)
		s.waitActive(t, nsName(set, n), canary, func(o outcome) bool {
			// An answer that agrees with lint, and shows the policies
			// ran when lint has findings.
			return judge(o, set, fs, false).problem == "" && (len(fs) == 0 || o.err != nil || len(o.warnings) > 0)
		})
	}
}

// pair is one sample created under one cluster's namespace: lint's
// findings, the API server's answer and their comparison.
type pair struct {
	smp     sample
	cluster string
	fs      []rule.Finding
	o       outcome
	d       verdict
}

// judgeAll creates every sample under every cluster's namespace of the
// set (dryRun=All, workers requests at a time), judges each answer
// against lint and hands the pair to record, one call at a time.
func (s *server) judgeAll(t *testing.T, set string, samples []sample, names []string, clusters map[string]*cluster.Cluster, covered []*rule.Rule, m winsupport.Model, workers int, record func(pair)) {
	t.Helper()
	var mu sync.Mutex
	jobs := make(chan sample)
	var wg sync.WaitGroup
	for range workers {
		rq := s.requester(t)
		wg.Go(func() {
			for smp := range jobs {
				for _, n := range names {
					fs := lintOf(smp.obj, covered, clusters[n], m)
					o := rq.dryRun(t.Context(), nsName(set, n), smp.obj)
					d := judge(o, set, fs, outOfScope(smp.obj) != "")
					mu.Lock()
					record(pair{smp: smp, cluster: n, fs: fs, o: o, d: d})
					mu.Unlock()
				}
			}
		})
	}
	for _, smp := range samples {
		jobs <- smp
	}
	close(jobs)
	wg.Wait()
}

// verdict is one pair's comparison.
type verdict struct {
	rejected, outside, denied, warned bool
	problem                           string // "" when the policies decided as lint
}

// judge compares the API server's answer with lint's findings: denied
// exactly when lint has an error, naming one of lint's error rules in
// its words, and warned about exactly lint's warnings, in their words.
func judge(o outcome, set string, fs []rule.Finding, outside bool) verdict {
	if rejectedByValidation(o) {
		return verdict{rejected: true}
	}
	v := verdict{outside: outside}
	warned, denied, problems := policyRules(o, set)
	v.denied, v.warned = denied != "", len(warned) > 0
	if len(problems) > 0 {
		v.problem = fmt.Sprintf("policy problems %q", problems)
		return v
	}
	if o.err != nil && denied == "" {
		v.problem = fmt.Sprintf("the API server failed the dry run: %v", o.err)
		return v
	}
	if outside {
		fs = nil
	}
	errs := ids(fs, func(f rule.Finding) bool { return f.Severity == rule.Error })
	warns := ids(fs, func(f rule.Finding) bool { return f.Severity == rule.Warning })
	switch {
	case len(errs) > 0 && denied == "":
		v.problem = fmt.Sprintf("admitted, but lint reports errors %v%s", errs, describe(fs))
	case len(errs) == 0 && denied != "":
		v.problem = fmt.Sprintf("denied for %s, which lint does not report as an error%s", denied, describe(fs))
	case denied != "" && !slices.Contains(errs, denied):
		v.problem = fmt.Sprintf("denied for %s, lint's errors are %v%s", denied, errs, describe(fs))
	case !slices.Equal(sortedKeys(warned), warns):
		v.problem = fmt.Sprintf("warned %v, lint's warnings are %v%s", sortedKeys(warned), warns, describe(fs))
	}
	if v.problem != "" {
		return v
	}
	// A rule may report at two severities (windows-unsupported-volume):
	// the denial carries its errors, the warnings its warnings.
	bySeverity := func(s rule.Severity) []rule.Finding { return ofSeverity(fs, s) }
	if denied != "" {
		msg := o.err.Error()
		lint := messagesOf(denied, bySeverity(rule.Error))
		if m := deniedRE.FindStringIndex(msg); m != nil && !joinsOf(msg[m[1]:], lint) {
			v.problem = fmt.Sprintf("the denial %q is not lint's words %q", msg[m[1]:], lint)
			return v
		}
	}
	msgs := policyMessages(o, set)
	for _, id := range sortedKeys(warned) {
		if diff := messagesAgree(id, msgs[id], bySeverity(rule.Warning)); diff != "" {
			v.problem = "message of " + diff
			return v
		}
	}
	return v
}

func messagesOf(id string, fs []rule.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Rule == id {
			out = append(out, f.Message)
		}
	}
	return out
}

// joinsOf reports whether msg is one or more of lint's messages, each at
// most once, joined by "; " (a denial carries one validation's message,
// which may hold a share of the rule's findings).
func joinsOf(msg string, lint []string) bool {
	used := make([]bool, len(lint))
	var match func(rest string) bool
	match = func(rest string) bool {
		for i, l := range lint {
			if used[i] || !strings.HasPrefix(rest, l) {
				continue
			}
			next := rest[len(l):]
			if next == "" {
				return true
			}
			if !strings.HasPrefix(next, "; ") {
				continue
			}
			used[i] = true
			if match(next[2:]) {
				return true
			}
			used[i] = false
		}
		return false
	}
	return match(msg)
}

// writeRepro writes what a person needs to replay one disagreement and
// returns the file's path.
func writeRepro(dir string, n int, smp sample, clusterName string, c *cluster.Cluster, fs []rule.Finding, o outcome, problem string) string {
	type finding struct{ Rule, Severity, Path, Message string }
	var lint []finding
	for _, f := range fs {
		lint = append(lint, finding{f.Rule, f.Severity.String(), f.Path, f.Message})
	}
	var apiErr string
	if o.err != nil {
		apiErr = o.err.Error()
	}
	clusterYAML, _ := yaml.Marshal(c)
	objYAML, _ := yaml.Marshal(smp.obj.Typed)
	repro := map[string]any{
		"problem": problem, "sample": smp.name, "cluster": clusterName, "clusterFile": string(clusterYAML),
		"object": string(objYAML), "lint": lint, "api": map[string]any{"error": apiErr, "warnings": o.warnings},
	}
	b, err := json.MarshalIndent(repro, "", "  ")
	if err != nil {
		return "(not written: " + err.Error() + ")"
	}
	file := filepath.Join(dir, fmt.Sprintf("%03d.json", n))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		return "(not written: " + err.Error() + ")"
	}
	return file
}

// requester sends dry-run creates on its own client, so that each
// goroutine's warnings are its own request's.
type requester struct {
	dyn  dynamic.Interface
	warn []string
}

func (r *requester) HandleWarningHeader(_ int, _ string, text string) { r.warn = append(r.warn, text) }

func (s *server) requester(t testing.TB) *requester {
	t.Helper()
	r := &requester{}
	r.dyn = s.dynamicClient(t, r)
	return r
}

func (r *requester) dryRun(ctx context.Context, ns string, obj *manifest.Object) outcome {
	u, gvr, err := toUnstructured(obj, ns)
	if err != nil {
		return outcome{err: err}
	}
	r.warn = nil
	out, err := r.dyn.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return outcome{obj: out, warnings: append([]string(nil), r.warn...), err: err}
}
