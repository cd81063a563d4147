package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// ltsc2019Deployment is the image half of issue 19's reproduction: a
// Windows Server 2019 image in a Deployment that is otherwise well
// placed for --cluster reference (Windows Server 2022 nodes tainted
// os=windows:NoSchedule), so that image-build-mismatch is lint's only
// error.
const ltsc2019Deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: legacy}
spec:
  replicas: 1
  selector: {matchLabels: {app: legacy}}
  template:
    metadata: {labels: {app: legacy}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
      containers:
      - name: app
        image: mcr.microsoft.com/windows/servercore:ltsc2019
        resources: {requests: {cpu: 500m, memory: 512Mi}, limits: {cpu: "1", memory: 1Gi}}
`

// TestImageBuildMismatchDenied is issue 19's reproduction for
// image-build-mismatch, run as a user runs it: `winkube policy export
// --cluster reference | kubectl apply -f -`, then a server-side dry-run
// create of a Deployment with an ltsc2019 image. Lint reports the error;
// the API server must deny it in lint's words.
func TestImageBuildMismatchDenied(t *testing.T) {
	export := exportAsAUser(t, "reference")
	c, err := cluster.Named("reference")
	if err != nil {
		t.Fatal(err)
	}
	m := winsupport.Default()
	obj := mustObject(t, ltsc2019Deployment)
	res := engine.Check([]*manifest.Object{obj}, engine.Options{Rules: rules.Suite(), Cluster: c, Model: m})
	var lint string
	for _, f := range res.Findings {
		switch {
		case f.Severity == rule.Error && f.Rule == rules.ImageBuildMismatch.ID:
			lint = f.Message
		case f.Severity == rule.Error:
			t.Errorf("lint reports another error, which could deny first: %s: %s", f.Rule, f.Message)
		}
	}
	if lint == "" {
		t.Fatalf("lint no longer reports image-build-mismatch for an ltsc2019 image on --cluster reference: %+v", res.Findings)
	}
	s := startServer(t)
	s.applyAll(t, export)
	s.waitActive(t, "default", mustObject(t, windowsCanary), func(o outcome) bool {
		_, d, _ := policyRules(o, "winkube")
		return d != ""
	})
	o := s.dryRun(t.Context(), "default", obj)
	_, denied, problems := policyRules(o, "winkube")
	if len(problems) > 0 {
		t.Fatalf("policy problems: %q", problems)
	}
	if denied != rules.ImageBuildMismatch.ID {
		t.Fatalf("denied for %q, want image-build-mismatch; error %v, warnings %q", denied, o.err, o.warnings)
	}
	if want := "image-build-mismatch: " + lint; !strings.HasSuffix(o.err.Error(), want) {
		t.Errorf("the denial %q does not end in lint's words %q", o.err, want)
	}
}

// TestImageBuildHostsDecideAsLint holds image-build-mismatch's CEL to
// lint over every pairing the rule distinguishes: an image of every build
// the tag tables know (LTSC, end-of-life SAC, a full build number, a
// third party's inferred build, two containers) against Windows pools of
// every known build, of builds the model does not know (10.0.22621,
// 10.0.25398) and of one no Windows version can be (10.0.99999), and
// against pins, including values only winsupport.ParseOSVersion's reading
// makes a build (010.0.17763, 10.00.20348, 10.0.0026100) and values no
// host can be (10.0.65536, 11.0.20348). Every pair is judged as the
// differential test judges it.
func TestImageBuildHostsDecideAsLint(t *testing.T) {
	images := [][]string{
		{"mcr.microsoft.com/windows/servercore:ltsc2016"}, {"mcr.microsoft.com/windows/servercore:ltsc2019"},
		{"mcr.microsoft.com/windows/nanoserver:1809"}, {"mcr.microsoft.com/windows/servercore:10.0.17763.5458"},
		{"mcr.microsoft.com/windows/servercore:ltsc2022"}, {"mcr.microsoft.com/windows/nanoserver:ltsc2025"},
		{"mcr.microsoft.com/windows/servercore:1903"}, {"mcr.microsoft.com/windows/servercore:20H2"},
		{"example.com/team/app:1.0-windows2019"}, {"example.com/team/agent:1809"}, {"contoso.azurecr.io/billing:3.2-ltsc2022"},
		{"mcr.microsoft.com/windows/servercore:ltsc2019", "mcr.microsoft.com/windows/servercore:ltsc2025"},
		{"mcr.microsoft.com/windows/servercore:ltsc2022", "example.com/team/app:2.0-ws2019", "mcr.microsoft.com/windows/nanoserver:ltsc2016"},
	}
	build := cluster.LabelWindowsBuild
	type placement struct {
		selector map[string]string
		terms    [][]corev1.NodeSelectorRequirement
	}
	in := func(k string, vs ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: vs}
	}
	placements := []placement{
		{selector: map[string]string{cluster.LabelOS: "windows"}},
		{terms: [][]corev1.NodeSelectorRequirement{{in(build, "10.0.17763", "10.0.26100")}}},
		{terms: [][]corev1.NodeSelectorRequirement{{in(build, "10.0.20348", "10.0.22621")}}},
	}
	for _, b := range []string{"10.0.14393", "10.0.17763", "10.0.20348", "10.0.26100", "10.0.17763.5458", "10.0.22621"} {
		placements = append(placements, placement{selector: map[string]string{cluster.LabelOS: "windows", build: b}})
	}
	// A pin the constraints do not narrow to: the second term admits every
	// Windows node, so the first term's value is a pinned host of its own.
	for _, v := range []string{"010.0.17763", "10.00.20348", "10.0.0026100", "10.0.26101", "10.0.22000", "10.0.65536", "11.0.20348", "10.0.17763.1"} {
		placements = append(placements, placement{terms: [][]corev1.NodeSelectorRequirement{{in(build, v)}, {in(cluster.LabelOS, "windows")}}})
	}
	var samples []sample
	for i, imgs := range images {
		for j, p := range placements {
			spec := corev1.PodSpec{OS: &corev1.PodOS{Name: corev1.Windows}, NodeSelector: p.selector,
				Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}
			if len(p.terms) > 0 {
				var terms []corev1.NodeSelectorTerm
				for _, t := range p.terms {
					terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: t})
				}
				spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
			}
			for k, img := range imgs {
				spec.Containers = append(spec.Containers, corev1.Container{Name: fmt.Sprintf("c%d", k), Image: img, Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}})
			}
			y, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": fmt.Sprintf("ib-%d-%d", i, j)}, "spec": spec})
			if err != nil {
				t.Fatal(err)
			}
			samples = append(samples, workloads(t, fmt.Sprintf("image-build/%d/%d", i, j), y, "", "")...)
		}
	}
	pool := func(name, b string) cluster.Pool {
		return cluster.Pool{Name: name, Count: 2, OS: "windows", WindowsBuild: b, CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110, Taints: []corev1.Taint{cluster.WindowsTaint}}
	}
	linux := cluster.Pool{Name: "linux", Count: 2, OS: "linux", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110}
	clusters := map[string]*cluster.Cluster{
		"ws2016":     {Pools: []cluster.Pool{linux, pool("win2016", "10.0.14393")}},
		"ws2019":     {Pools: []cluster.Pool{linux, pool("win2019", "10.0.17763")}},
		"ws2025":     {Pools: []cluster.Pool{linux, pool("win2025", "10.0.26100")}},
		"every-ltsc": {Pools: []cluster.Pool{linux, pool("win2019", "10.0.17763"), pool("win2022", "10.0.20348"), pool("win2025", "10.0.26100")}},
		"unknown":    {Pools: []cluster.Pool{linux, pool("win22h2", "10.0.22621"), pool("win23h2", "10.0.25398"), pool("odd", "10.0.99999")}},
		"linux-only": {Pools: []cluster.Pool{linux}},
	}
	if c, err := cluster.Named("reference"); err == nil {
		clusters["reference"] = c
	} else {
		t.Fatal(err)
	}
	counts := decideAsLint(t, "winkube-ib", samples, clusters, rules.ImageBuildMismatch)
	if c := counts[rules.ImageBuildMismatch.ID]; c.linted == 0 || c.reported == 0 {
		t.Errorf("image-build-mismatch fired in %d pairs and was denied in %d: the comparison compared nothing", c.linted, c.reported)
	}
}

// ruleCount is how often lint reported a rule over the pairs of
// decideAsLint, and in how many of those the policies reported it too
// (the denial for an error, a warning for a warning).
type ruleCount struct{ linted, reported int }

// decideAsLint judges every sample under every cluster as
// TestPoliciesDecideAsLint does, with a policy set of its own, and
// counts the rules of interest.
func decideAsLint(t *testing.T, set string, samples []sample, clusters map[string]*cluster.Cluster, of ...*rule.Rule) map[string]ruleCount {
	t.Helper()
	m := winsupport.Default()
	names := slices.Sorted(maps.Keys(clusters))
	s := startServer(t)
	installSet(t, s, set, policy.Options{Rules: rules.Suite(), Model: m, Mode: policy.Enforce})
	covered := coveredRules(m)
	s.activate(t, set, names, clusters, covered, m)
	var pairs, rejected, disagree int
	counts := map[string]ruleCount{}
	s.judgeAll(t, set, samples, names, clusters, covered, m, 4, func(p pair) {
		warned, denied, _ := policyRules(p.o, set)
		pairs++
		if p.d.rejected {
			rejected++
		}
		for _, r := range of {
			c := counts[r.ID]
			for _, f := range p.fs {
				if f.Rule == r.ID {
					c.linted++
					if (f.Severity == rule.Error && denied == r.ID) || (f.Severity == rule.Warning && warned[r.ID]) {
						c.reported++
					}
					break
				}
			}
			counts[r.ID] = c
		}
		if p.d.problem != "" {
			disagree++
			if disagree <= 20 {
				t.Errorf("%s under %s: %s", p.smp.name, p.cluster, p.d.problem)
			}
		}
	})
	t.Logf("%d pairs (%d objects × %d clusters), %d refused by the API server's own validation; %d disagreements; lint and policies per rule: %+v", pairs, len(samples), len(names), rejected, disagree, counts)
	return counts
}
