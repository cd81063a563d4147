package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// convention holds a finding on every workload until the input is read,
// then says what the input's Windows taint convention is; it drops the
// finding of a workload whose name starts with "quiet".
var convention = &rule.Rule{ID: "convention", Severity: rule.Warning, Workload: func(p *rule.Pass) {
	quiet := strings.HasPrefix(p.Object.Name, "quiet")
	p.Later(rule.Finding{Path: rule.Path(p.Workload.SpecPath)}, func(in *rule.Evidence, f *rule.Finding) bool {
		f.Message = fmt.Sprintf("%d windows, no convention", in.WindowsWorkloads)
		if c := in.WindowsTaint; c != nil {
			f.Message = fmt.Sprintf("%d of %d tolerate %s=%s", c.Tolerating, in.WindowsWorkloads, c.Taint.Key, c.Taint.Value)
		}
		return !quiet
	})
}}

// winPod is a Windows pod tolerating tols (YAML flow mappings).
func winPod(name string, tols ...string) string {
	t := ""
	if len(tols) > 0 {
		t = "  tolerations:\n"
		for _, x := range tols {
			t += "  - " + x + "\n"
		}
	}
	return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\nspec:\n  nodeSelector: {kubernetes.io/os: windows}\n%s  containers:\n  - name: app\n    image: mcr.microsoft.com/windows/nanoserver:ltsc2022\n", name, t)
}

const (
	osWindows = "{key: os, value: windows, effect: NoSchedule}"
	osCapital = "{key: os, value: Windows, effect: NoSchedule}"
	gke       = "{key: node.kubernetes.io/os, value: windows, effect: NoSchedule}"
	blanket   = "{operator: Exists}"
	k2s       = "{key: OS, value: Windows, effect: NoSchedule}"
)

func TestInputConvention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		docs []string
		want string
	}{
		{"majority", []string{winPod("a", gke), winPod("b", gke), winPod("c", gke), winPod("d")}, "3 of 4 tolerate node.kubernetes.io/os=windows"},
		{"half, more than any other", []string{winPod("a", osWindows), winPod("b", osWindows), winPod("c", osCapital), winPod("d")}, "2 of 4 tolerate os=windows"},
		{"tie", []string{winPod("a", osWindows), winPod("b", gke), winPod("c")}, "3 windows, no convention"},
		{"under half", []string{winPod("a", osWindows), winPod("b"), winPod("c")}, "3 windows, no convention"},
		// A blanket toleration tolerates every convention: it favours none,
		// but counts as tolerating the one the others name.
		{"blanket favours none", []string{winPod("a", blanket), winPod("b", blanket), winPod("c")}, "3 windows, no convention"},
		{"blanket counts", []string{winPod("a", blanket), winPod("b", osCapital), winPod("c"), winPod("d")}, "2 of 4 tolerate os=Windows"},
		// A Windows taint of the input's own spelling is a convention too.
		{"own spelling", []string{winPod("a", k2s), winPod("b", k2s), winPod("c")}, "2 of 3 tolerate OS=Windows"},
		{"own spelling against a known one", []string{winPod("a", k2s), winPod("b", osWindows), winPod("c", osWindows), winPod("d")}, "2 of 4 tolerate os=windows"},
		// Linux workloads are not evidence about Windows taints.
		{"linux ignored", []string{winPod("a", gke), winPod("b"), pod("l1", "nginx:1.27"), pod("l2", "nginx:1.27")}, "1 of 2 tolerate node.kubernetes.io/os=windows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := manifest.BytesInput("in.yaml", []byte(strings.Join(tc.docs, "---\n")))
			for _, workers := range []int{1, 4} {
				res, err := engine.Run(t.Context(), []manifest.Input{in}, engine.Options{Rules: []*rule.Rule{convention}, Workers: workers, Model: winsupport.Default()})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Findings) != len(tc.docs) {
					t.Fatalf("%d findings, want one per workload (%d): %v", len(res.Findings), len(tc.docs), res.Findings)
				}
				for i, f := range res.Findings {
					if f.Message != tc.want {
						t.Errorf("workers=%d: finding %d: %q, want %q", workers, i, f.Message, tc.want)
					}
					if f.Severity != rule.Warning || f.Rule != "convention" {
						t.Errorf("finding %d: rule %s severity %s, want convention warning", i, f.Rule, f.Severity)
					}
				}
			}
		})
	}
}

// Held findings are located, ordered and suppressed like any other, and a
// Decide that returns false drops its finding.
func TestHeldFindingsPlaced(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{
		"a.yaml": winPod("a", gke) + "---\n" + winPod("quiet-b", gke) + "---\n" +
			strings.Replace(winPod("c"), "  name: c\n", "  name: c\n  annotations: {winkube.io/ignore: convention}\n", 1),
	})
	got := run(t, 2, []*rule.Rule{convention}, dir)
	want := []seen{
		{"convention", "a.yaml", 5, 1, "2 of 3 tolerate node.kubernetes.io/os=windows", false},
		{"convention", "a.yaml", 30, 1, "2 of 3 tolerate node.kubernetes.io/os=windows", true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}

// One object (the webhook's, audit's single objects, Validate) is never
// evidence about itself: it follows a convention or there is none.
func TestOneObjectSetsNoConvention(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{winPod("a"), "1 windows, no convention"},
		{winPod("a", osCapital), "1 of 1 tolerate os=Windows"},
	} {
		objs, errs := manifest.Decode(manifest.Document{File: "in.yaml", Line: 1, Data: []byte(tc.doc)})
		if len(errs) > 0 || len(objs) != 1 {
			t.Fatalf("decode: %v", errs)
		}
		opts := engine.Options{Rules: []*rule.Rule{convention}, Model: winsupport.Default()}
		res := engine.Check(objs, opts)
		if len(res.Findings) != 1 || res.Findings[0].Message != tc.want {
			t.Errorf("Check: %v, want one finding %q", res.Findings, tc.want)
		}
		// Validate checks each object on its own, with no run to wait for.
		v := engine.Validate(objs, opts)
		if len(v[0]) != 1 || v[0][0].Message != "0 windows, no convention" || v[0][0].Severity != rule.Warning {
			t.Errorf("Validate: %v, want one warning with no evidence", v[0])
		}
	}
}

// A field holding an unfilled placeholder is load-error's alone: a rule
// judging the same value says nothing, whether the workload is checked at
// once or waits for its RuntimeClass; the rest of the object is checked.
func TestPlaceholderFieldReportedOnce(t *testing.T) {
	t.Parallel()
	doc := func(name, rc string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\nspec:\n%s  containers:\n  - name: app\n    image: <image-name>\n  - name: side\n    image: busybox:1.36\n", name, rc)
	}
	dir := write(t, map[string]string{"a.yaml": doc("now", "") + "---\n" + doc("later", "  runtimeClassName: windows\n")})
	got := run(t, 2, []*rule.Rule{loadError, images}, dir)
	want := []seen{
		{engine.LoadErrorID, "a.yaml", 8, 12, `image: placeholder "<image-name>" was never filled in`, false},
		{"images", "a.yaml", 10, 5, "image busybox:1.36", false},
		{engine.LoadErrorID, "a.yaml", 20, 12, `image: placeholder "<image-name>" was never filled in`, false},
		{"images", "a.yaml", 22, 5, "image busybox:1.36", false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}
