package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// unpinnedCanary is a Windows pod the fixes pin.
const unpinnedCanary = `apiVersion: v1
kind: Pod
metadata: {name: canary}
spec:
  containers: [{name: c, image: mcr.microsoft.com/windows/servercore:ltsc2022}]
`

// fixRules are the rules whose safe fixes the mutating policy applies.
func fixRules(t *testing.T) []*rule.Rule {
	var out []*rule.Rule
	for _, id := range policy.FixRules {
		r := rules.ByID(id)
		if r == nil {
			t.Fatalf("policy.FixRules names %q, which is not in the suite", id)
		}
		out = append(out, r)
	}
	return out
}

// winkubeFix is what winkube fix does to the object on its own (safe
// fixes of the fix rules, until a pass changes nothing), as an object.
func winkubeFix(t *testing.T, o *manifest.Object, rs []*rule.Rule, c *cluster.Cluster, m winsupport.Model) *manifest.Object {
	t.Helper()
	raw, err := json.Marshal(o.Typed)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["apiVersion"], doc["kind"] = o.APIVersion, o.Kind
	data, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	const name = "object.yaml"
	for pass := 0; pass < 5; pass++ {
		res, err := engine.Run(t.Context(), []manifest.Input{manifest.BytesInput(name, data)}, engine.Options{Rules: rs, Cluster: c, Model: m})
		if err != nil {
			t.Fatal(err)
		}
		byFile, _ := fix.Plan(res.Findings, fix.Policy{})
		next, _ := fix.Apply(data, byFile[name])
		if bytes.Equal(next, data) {
			break
		}
		data = next
	}
	objs, errs := manifest.ReadAll([]manifest.Input{manifest.BytesInput(name, data)})
	if len(objs) != 1 {
		t.Fatalf("re-reading the fixed object: %v", errs)
	}
	return objs[0]
}

// podSpec is the pod spec of an object the API server returned, where
// the fixes act; the rest of a dry-run object holds generated UIDs.
func podSpec(u *unstructured.Unstructured) map[string]any {
	paths := [][]string{{"spec", "template", "spec"}, {"spec", "jobTemplate", "spec", "template", "spec"}, {"template", "spec"}}
	if u.GetKind() == "Pod" {
		paths = [][]string{{"spec"}}
	}
	for _, p := range paths {
		if m, ok, _ := unstructured.NestedMap(u.Object, p...); ok {
			// Tolerations are a set to the scheduler. The API server's
			// DefaultTolerationSeconds plugin runs before admission policies
			// and webhooks, so their additions come after its own, while a
			// toleration winkube fix wrote comes before: order them.
			if tols, ok := m["tolerations"].([]any); ok {
				sort.Slice(tols, func(i, j int) bool { return fmt.Sprint(tols[i]) < fmt.Sprint(tols[j]) })
			}
			return m
		}
	}
	return nil
}

// TestMutatingPolicyAgreesWithFix requires the exported
// MutatingAdmissionPolicy to store every object as winkube fix would
// write it: the API server's answer to a dry run of the original object
// with the policy installed equals its answer to the fixed object without
// it.
func TestMutatingPolicyAgreesWithFix(t *testing.T) {
	s := startServer(t)
	rs := fixRules(t)
	m := winsupport.Default()
	const set = "winkube-fix"
	installSet(t, s, set, policy.Options{Rules: rs, Model: m, Mode: policy.WarnOnly, Fixes: true})
	// The webhook, with the same rules on the reference cluster, in mutate
	// mode (fixes, no denials).
	startWebhook(t, s, "mode: mutate\n"+onlyRules(policy.FixRules))
	s.namespace(t, "webhook", map[string]string{webhookLabel: "on"}, testClusters["reference"](), m)
	samples := allSamples(t)
	spaces := map[string]bool{}
	for _, smp := range samples {
		if !spaces[smp.cluster] {
			spaces[smp.cluster] = true
			c := testClusters[smp.cluster]()
			s.namespace(t, nsName(set, smp.cluster), map[string]string{policiesLabel: set}, c, m)
			s.namespace(t, nsName("plain", smp.cluster), nil, c, m)
		}
	}
	s.waitActive(t, nsName(set, "reference"), mustObject(t, unpinnedCanary), func(o outcome) bool {
		return o.err == nil && o.obj != nil && podSpec(o.obj)["nodeSelector"] != nil
	})
	s.waitActive(t, "webhook", mustObject(t, unpinnedCanary), func(o outcome) bool {
		return o.err == nil && o.obj != nil && podSpec(o.obj)["nodeSelector"] != nil
	})
	var compared, fixed, rejected, viaWebhook, unreadable int
	for _, smp := range samples {
		got := s.dryRun(t.Context(), nsName(set, smp.cluster), smp.obj)
		if rejectedByValidation(got) {
			rejected++
			continue
		}
		if got.err != nil {
			t.Errorf("%s: the API server refused it with the mutating policy installed: %v", smp.name, got.err)
			continue
		}
		want := smp.obj
		if outOfScope(smp.obj) == "" {
			want = winkubeFix(t, smp.obj, rs, testClusters[smp.cluster](), m)
		}
		plain := s.dryRun(t.Context(), nsName("plain", smp.cluster), want)
		if plain.err != nil {
			t.Errorf("%s: the API server refuses the object winkube fix writes: %v", smp.name, plain.err)
			continue
		}
		compared++
		if diff := cmp.Diff(podSpec(plain.obj), podSpec(got.obj)); diff != "" {
			t.Errorf("%s (cluster %s): the mutating policy and winkube fix disagree (-fix +policy):\n%s", smp.name, smp.cluster, diff)
			continue
		}
		if smp.cluster == "reference" {
			hook := s.dryRun(t.Context(), "webhook", smp.obj)
			if hook.err != nil && strings.Contains(hook.err.Error(), "was never filled in") {
				unreadable++ // the webhook refuses what lint reports as load-error
			} else if hook.err != nil {
				t.Errorf("%s: the API server refused it with the webhook registered: %v", smp.name, hook.err)
				continue
			}
			if hook.err == nil {
				viaWebhook++
				if diff := cmp.Diff(podSpec(hook.obj), podSpec(got.obj)); diff != "" {
					t.Errorf("%s: the mutating policy and the webhook disagree (-webhook +policy):\n%s", smp.name, diff)
					continue
				}
			}
		}
		if !cmp.Equal(podSpec(plain.obj), podSpec(s.dryRun(t.Context(), nsName("plain", smp.cluster), smp.obj).obj)) {
			fixed++
		}
	}
	t.Logf("%d workloads compared with winkube fix (%d of them also with the webhook, which refused %d with unfilled template placeholders), %d of them changed by the fixes; %d rejected by the API server's own validation", compared, viaWebhook, unreadable, fixed, rejected)
	if fixed == 0 {
		t.Fatal("no object was fixed: the comparison proves nothing")
	}
}
