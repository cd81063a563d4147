package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

const policiesLabel = "winkube.test/policies"

// windowsCanary fires, on every cluster profile and release, a rule of
// each severity: linux-image-on-windows (error), windows-missing-resources
// (warning) and windows-linux-path (info), so that waiting for all three
// waits for every policy of a set.
const windowsCanary = `apiVersion: v1
kind: Pod
metadata: {name: canary}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  containers: [{name: c, image: alpine:3.20, volumeMounts: [{name: v, mountPath: /etc/canary}]}]
  volumes: [{name: v, emptyDir: {}}]
`

func model(t *testing.T, version string) winsupport.Model {
	t.Helper()
	if version == "" {
		return winsupport.Default()
	}
	v, err := winsupport.ParseVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	return winsupport.ForVersion(v)
}

// coveredRules are the suite's rules the policies check at the release.
func coveredRules(m winsupport.Model) []*rule.Rule {
	var out []*rule.Rule
	for _, r := range rules.Suite() {
		if policy.Covers(r.ID, m) {
			out = append(out, r)
		}
	}
	return out
}

// outOfScope says why the policies leave a workload alone, if they do.
func outOfScope(o *manifest.Object) string {
	if w := o.Workload(); w.Spec.RuntimeClassName != nil && *w.Spec.RuntimeClassName != "" {
		return "names a RuntimeClass"
	}
	if w := o.Workload(); o.Kind == "Pod" {
		for _, ref := range w.Meta.OwnerReferences {
			if ref.Controller != nil && *ref.Controller && slices.Contains([]string{"ReplicaSet", "StatefulSet", "DaemonSet", "Job"}, ref.Kind) {
				return "a pod a checked controller owns"
			}
		}
	}
	return ""
}

func ids(fs []rule.Finding, keep func(rule.Finding) bool) []string {
	set := map[string]bool{}
	for _, f := range fs {
		if keep == nil || keep(f) {
			set[f.Rule] = true
		}
	}
	return sortedKeys(set)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func describe(fs []rule.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n    lint: %s %s: %s", f.Rule, f.Path, f.Message)
	}
	return b.String()
}

// installSet exports and installs one policy set whose bindings select
// namespaces labelled with its name.
func installSet(t testing.TB, s *server, name string, o policy.Options) {
	t.Helper()
	o.Name, o.ParamsNamespace = name, ""
	o.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{policiesLabel: name}}
	y, err := policy.Export(o, "admission-policy")
	if err != nil {
		t.Fatal(err)
	}
	s.apply(t, y)
}

func allSamples(t *testing.T) []sample {
	out := fixtureSamples(t)
	out = append(out, corpusSamples(t)...)
	return append(out, generatedSamples(t, 13, 2000)...)
}

// TestValidatingPoliciesAgreeWithLint installs the exported policies in
// warn mode, so that every failing validation is reported, and requires
// the warned rule IDs of every object to be lint's.
func TestValidatingPoliciesAgreeWithLint(t *testing.T) {
	s := startServer(t)
	samples := allSamples(t)
	sets := map[string]bool{}
	spaces := map[string]bool{}
	for _, smp := range samples {
		set := nsName("winkube", "v"+smp.version)
		m := model(t, smp.version)
		if !sets[set] {
			sets[set] = true
			installSet(t, s, set, policy.Options{Rules: rules.Suite(), Model: m, Mode: policy.WarnOnly})
		}
		ns := nsName(set, smp.cluster)
		if !spaces[ns] {
			spaces[ns] = true
			s.namespace(t, ns, map[string]string{policiesLabel: set}, testClusters[smp.cluster](), m)
			s.waitActive(t, ns, mustObject(t, windowsCanary), func(o outcome) bool {
				w, _, _ := policyRules(o, set)
				return w["linux-image-on-windows"] && w["windows-missing-resources"] && w["windows-linux-path"]
			})
		}
	}
	// The same policies in enforce mode, on the reference cluster: errors
	// deny, warnings warn, info only audits.
	const enforce = "winkube-enforce"
	installSet(t, s, enforce, policy.Options{Rules: rules.Suite(), Model: winsupport.Default(), Mode: policy.Enforce})
	s.namespace(t, enforce, map[string]string{policiesLabel: enforce}, testClusters["reference"](), winsupport.Default())
	s.waitActive(t, enforce, mustObject(t, windowsCanary), func(o outcome) bool {
		w, d, _ := policyRules(o, enforce)
		return d != "" && w["windows-missing-resources"]
	})
	var checked, rejected, outside, withFindings, denials, messages int
	badMessages := map[string]int{}
	for _, smp := range samples {
		set := nsName("winkube", "v"+smp.version)
		m := model(t, smp.version)
		o := s.dryRun(t.Context(), nsName(set, smp.cluster), smp.obj)
		if rejectedByValidation(o) {
			rejected++
			continue
		}
		warned, denied, problems := policyRules(o, set)
		if o.err != nil && denied == "" && len(problems) == 0 {
			t.Errorf("%s: the API server failed the dry run: %v", smp.name, o.err)
			continue
		}
		if denied != "" {
			problems = append(problems, "denied in warn mode: "+denied)
		}
		fs := lintOf(smp.obj, coveredRules(m), testClusters[smp.cluster](), m)
		want := ids(fs, nil)
		if why := outOfScope(smp.obj); why != "" {
			outside++
			want = nil
		}
		got := sortedKeys(warned)
		checked++
		if len(want) > 0 {
			withFindings++
		}
		if !slices.Equal(got, want) || len(problems) > 0 {
			t.Errorf("%s (cluster %s, Kubernetes %s):\n  policies warned %v\n  lint reports    %v%s\n  server warnings: %q\n  problems: %q",
				smp.name, smp.cluster, m.V, got, want, describe(fs), o.warnings, problems)
		} else {
			msgs := policyMessages(o, set)
			for _, id := range got {
				messages++
				if diff := messagesAgree(id, msgs[id], fs); diff != "" {
					badMessages[id]++
					if badMessages[id] <= 3 {
						t.Errorf("%s (cluster %s, Kubernetes %s): message of %s", smp.name, smp.cluster, m.V, diff)
					}
				}
			}
		}
		if smp.cluster == "reference" && smp.version == "" {
			if checkEnforced(t, s, enforce, smp, fs, want == nil) {
				denials++
			}
		}
	}
	t.Logf("%d workloads compared (%d with findings, %d out of the policies' scope); %d rejected by the API server's own validation before admission policies; in enforce mode %d denied; %d rule messages compared", checked, withFindings, outside, rejected, denials, messages)
	for id, n := range badMessages {
		t.Errorf("%s: %d objects where the policy's message is not lint's (documented form)", id, n)
	}
	if checked == 0 || withFindings == 0 {
		t.Fatal("nothing was compared")
	}
}

// checkEnforced requires the enforce-mode policies to deny exactly the
// objects with an error finding, naming one of them, and to warn about
// the warning findings of every object (the API server returns the
// warnings with a denial). It reports whether the
// object was denied.
func checkEnforced(t *testing.T, s *server, set string, smp sample, fs []rule.Finding, outside bool) bool {
	t.Helper()
	o := s.dryRun(t.Context(), set, smp.obj)
	warned, denied, problems := policyRules(o, set)
	var errs, warns []string
	if !outside {
		errs = ids(fs, func(f rule.Finding) bool { return f.Severity == rule.Error })
		warns = ids(fs, func(f rule.Finding) bool { return f.Severity == rule.Warning })
	}
	switch {
	case len(problems) > 0:
		t.Errorf("%s (enforce): %q", smp.name, problems)
	case len(errs) > 0 && !slices.Contains(errs, denied):
		t.Errorf("%s (enforce): lint has errors %v but the policies answered: denied %q, error %v", smp.name, errs, denied, o.err)
	case len(errs) == 0 && denied != "":
		t.Errorf("%s (enforce): denied for %s, which lint does not report as an error%s", smp.name, denied, describe(fs))
	case !slices.Equal(sortedKeys(warned), warns):
		t.Errorf("%s (enforce): warned %v, lint's warnings are %v%s", smp.name, sortedKeys(warned), warns, describe(fs))
	}
	return denied != ""
}
