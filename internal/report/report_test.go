package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/golden"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// Rules and findings are built by hand so that the golden files change
// only when a writer does, not when the rule suite's wording does.
var (
	testPin = &rule.Rule{ID: "test-os-pin", Title: "Workload is not pinned to an operating system", Severity: rule.Warning, Category: rule.Placement,
		Doc: rule.Doc{What: "Reports workloads without a kubernetes.io/os selector.", Why: "The scheduler ignores spec.os.name.", Fix: "Add nodeSelector kubernetes.io/os.",
			Sources: []string{"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod", "https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod"}}}
	testForbidden = &rule.Rule{ID: "test-forbidden-field", Title: "Field is rejected for Windows pods", Severity: rule.Error, Category: rule.API,
		Doc: rule.Doc{What: "Reports fields the API server rejects.", Why: "The API server refuses the pod.", Fix: "Remove the field.", Sources: []string{"k8s.io/kubernetes v1.36.3 validation.go"}}}
	testTip = &rule.Rule{ID: "test-memory-tip", Title: "Memory request is close to the limit", Severity: rule.Info, Category: rule.Resources,
		Doc: rule.Doc{What: "Reports tight memory.", Why: "Windows has no swap.", Fix: "Raise the limit."}}
)

func fixture() *Report {
	web := &manifest.Object{File: "manifests/app.yaml", APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Item: -1}
	job := &manifest.Object{File: "<stdin>", APIVersion: "batch/v1", Kind: "Job", Name: "migrate", Item: -1}
	odd := &manifest.Object{File: "/srv/odd dir/win,app.yaml", APIVersion: "apps/v1", Kind: "DaemonSet", Namespace: "kube-system", Name: "agent", Item: -1}
	privileged := "spec.template.spec.containers[0].securityContext.privileged"
	return &Report{
		Rules: []*rule.Rule{testPin, testForbidden, testTip},
		Files: 4, Objects: 3, Tool: "1.2.3",
		Findings: []rule.Finding{
			{Rule: "load-error", Severity: rule.Error, File: "dir with space/bad.yaml", Line: 7, Column: 3,
				Message: "yaml: mapping values are not allowed in this context", Hint: "indent with spaces, not tabs"},
			{Rule: testPin.ID, Severity: rule.Warning, Object: web, File: web.File, Line: 9, Column: 7, Path: "spec.template.spec.nodeSelector",
				Message: "Linux workload (from image nginx:1.27) has no kubernetes.io/os selector; it may be scheduled onto a Windows node",
				Fix: &rule.Fix{Title: "pin the workload to linux nodes", Safe: true, Edits: []rule.Edit{
					{Op: rule.Set, Path: "spec.template.spec.nodeSelector[kubernetes.io/os]", Value: "linux"}}}},
			{Rule: testForbidden.ID, Severity: rule.Error, Object: web, File: web.File, Line: 21, Column: 13, Path: privileged,
				Message: privileged + ": Forbidden: cannot be set for a windows pod", Hint: "use a HostProcess container",
				Fix: &rule.Fix{Title: "remove securityContext.privileged", Edits: []rule.Edit{{Op: rule.Remove, Path: privileged}}}},
			{Rule: testTip.ID, Severity: rule.Info, Object: job, File: job.File, Line: 4,
				Message: "memory request is 100% of the limit, 2Gi: the container is killed at the first spike"},
			{Rule: testPin.ID, Severity: rule.Warning, Object: odd, File: odd.File, Line: 3, Column: 1, Path: "spec.template.spec.nodeSelector",
				Message: "workload has no kubernetes.io/os selector", Suppressed: true},
		},
	}
}

func TestWriteGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, format string
		opts         Options
	}{
		{"text", "text", Options{}},
		{"text-color", "text", Options{Color: true}},
		{"json", "json", Options{}},
		{"sarif", "sarif", Options{}},
		{"github", "github", Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var first, second bytes.Buffer
			if err := Write(&first, tc.format, fixture(), tc.opts); err != nil {
				t.Fatal(err)
			}
			if err := Write(&second, tc.format, fixture(), tc.opts); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), second.Bytes()) {
				t.Errorf("%s output differs between two runs", tc.format)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), first.Bytes())
		})
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	t.Parallel()
	err := Write(&bytes.Buffer{}, "xml", fixture(), Options{})
	if err == nil || !strings.Contains(err.Error(), `unknown output format "xml"`) {
		t.Errorf("Write(xml) = %v, want an unknown-format error", err)
	}
}

func TestTextSummary(t *testing.T) {
	t.Parallel()
	one := func(s rule.Severity, suppressed bool) rule.Finding {
		return rule.Finding{Rule: "r", Severity: s, Message: "m", File: "f.yaml", Suppressed: suppressed}
	}
	for _, tc := range []struct {
		name string
		rep  Report
		want string
	}{
		{"empty", Report{}, "0 errors, 0 warnings, 0 info in 0 objects (0 files)"},
		{"singular", Report{Files: 1, Objects: 1, Findings: []rule.Finding{one(rule.Error, false), one(rule.Warning, false), one(rule.Info, false)}},
			"1 error, 1 warning, 1 info in 1 object (1 file)"},
		{"plural and suppressed", Report{Files: 2, Objects: 5, Findings: []rule.Finding{
			one(rule.Error, false), one(rule.Error, false), one(rule.Info, false), one(rule.Info, false), one(rule.Warning, true), one(rule.Error, true)}},
			"2 errors, 0 warnings, 2 info in 5 objects (2 files); 2 suppressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := Text(&b, &tc.rep, Options{}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if got := lines[len(lines)-1]; got != tc.want {
				t.Errorf("summary = %q, want %q", got, tc.want)
			}
		})
	}
}

// A suppressed finding is hidden from people (text, GitHub) but kept for
// machines (JSON, SARIF), so that audits can see what was waived.
func TestSuppressedFindings(t *testing.T) {
	t.Parallel()
	rep := fixture()
	var suppressed rule.Finding
	for _, f := range rep.Findings {
		if f.Suppressed {
			suppressed = f
		}
	}
	for _, format := range []string{"text", "github"} {
		var b bytes.Buffer
		if err := Write(&b, format, rep, Options{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), suppressed.Message) || strings.Contains(b.String(), "agent") {
			t.Errorf("%s output shows the suppressed finding:\n%s", format, b.String())
		}
	}
	var b bytes.Buffer
	if err := JSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var got jsonReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Findings) != len(rep.Findings) {
		t.Fatalf("JSON has %d findings, want all %d", len(got.Findings), len(rep.Findings))
	}
	var n int
	for _, f := range got.Findings {
		if f.Suppressed {
			n++
			if f.Message != suppressed.Message || f.Object.Name != "agent" {
				t.Errorf("suppressed JSON finding = %+v, want the agent finding", f)
			}
		}
	}
	if n != 1 || got.Summary.Suppressed != 1 {
		t.Errorf("JSON: %d suppressed findings, summary.suppressed %d; want 1 and 1", n, got.Summary.Suppressed)
	}
}
