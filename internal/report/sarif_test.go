package report

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

// schemaModule is a pinned Go module that ships the OASIS SARIF 2.1.0
// schema (errata01) as test data; the test reads it from the module cache
// rather than keeping a copy in this repository.
const (
	schemaModule = "github.com/securego/gosec/v2@v2.30.0"
	schemaFile   = "report/sarif/testdata/sarif-schema-2.1.0.json"
)

// sarifSchemaPath downloads (or finds in the module cache) the module
// carrying the schema and returns the schema's path.
func sarifSchemaPath(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", schemaModule).Output()
	if err != nil {
		t.Fatalf("fetching %s for the SARIF schema (needs the Go module proxy or a warm module cache): %v", schemaModule, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download %s: %s %v", schemaModule, mod.Error, err)
	}
	return filepath.Join(mod.Dir, schemaFile)
}

// sarifSchema compiles the SARIF 2.1.0 schema with format assertions on so
// that URIs are checked too.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	path := sarifSchemaPath(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"title": "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"`)) {
		t.Fatalf("%s does not look like the SARIF 2.1.0 schema", path)
	}
	sch, err := c.Compile(path)
	if err != nil {
		t.Fatalf("compiling the SARIF schema: %v", err)
	}
	return sch
}

func sarifOf(t *testing.T, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := SARIF(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSARIFSchema(t *testing.T) {
	t.Parallel()
	sch := sarifSchema(t)
	for _, tc := range []struct {
		name string
		rep  *Report
	}{
		{"fixture", fixture()},
		{"empty", &Report{}},
		{"rules but no findings", &Report{Rules: fixture().Rules}},
		// The real suite's docs become help text and Markdown.
		{"suite", &Report{Rules: rules.Suite(), Findings: fixture().Findings}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sarifOf(t, tc.rep)))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("SARIF output does not validate:\n%v", err)
			}
		})
	}
}

// TestSARIFSchemaRejects proves the schema test can fail: the same log
// with a broken level, line, suppression kind or version must not validate.
func TestSARIFSchemaRejects(t *testing.T) {
	t.Parallel()
	sch := sarifSchema(t)
	for _, tc := range []struct{ name, old, new string }{
		{"level", `"level": "note"`, `"level": "info"`},
		{"line", `"startLine": 9`, `"startLine": 0`},
		{"suppression kind", `"kind": "inSource"`, `"kind": "annotation"`},
		{"version", `"version": "2.1.0"`, `"version": "2.2.0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := string(sarifOf(t, fixture()))
			if !strings.Contains(out, tc.old) {
				t.Fatalf("output lacks %s", tc.old)
			}
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(out, tc.old, tc.new, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if sch.Validate(inst) == nil {
				t.Errorf("log with %s validates; the schema test would not catch it", tc.new)
			}
		})
	}
}

func TestSARIFResults(t *testing.T) {
	t.Parallel()
	rep := fixture()
	var log sarifLog
	if err := json.Unmarshal(sarifOf(t, rep), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	run := log.Runs[0]
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	// The rules that ran, in order, then the load-error rule a finding names.
	if want := []string{"test-os-pin", "test-forbidden-field", "test-memory-tip", "load-error"}; strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("driver rules = %v, want %v", ids, want)
	}
	if len(run.Results) != len(rep.Findings) {
		t.Fatalf("%d results, want %d", len(run.Results), len(rep.Findings))
	}
	for i, res := range run.Results {
		f := rep.Findings[i]
		if got := run.Tool.Driver.Rules[res.RuleIndex].ID; got != res.RuleID || got != f.Rule {
			t.Errorf("result %d: ruleIndex %d names %s, ruleId %s, want %s", i, res.RuleIndex, got, res.RuleID, f.Rule)
		}
		if (len(res.Suppressions) == 1) != f.Suppressed {
			t.Errorf("result %d: suppressions %v, finding suppressed %v", i, res.Suppressions, f.Suppressed)
		}
		if (res.Properties != nil) != (f.Fix != nil) {
			t.Errorf("result %d: properties %v, finding fix %v", i, res.Properties, f.Fix)
		}
		phys := res.Locations[0].PhysicalLocation
		if phys.Region.StartLine != f.Line || phys.Region.StartColumn != f.Column {
			t.Errorf("result %d: region %+v, want line %d column %d", i, *phys.Region, f.Line, f.Column)
		}
	}
	levels := map[rule.Severity]string{}
	for _, r := range rep.Rules {
		for _, d := range run.Tool.Driver.Rules {
			if d.ID == r.ID {
				levels[r.Severity] = d.DefaultConfiguration.Level
			}
		}
	}
	if want := map[rule.Severity]string{rule.Error: "error", rule.Warning: "warning", rule.Info: "note"}; len(levels) != 3 ||
		levels[rule.Error] != want[rule.Error] || levels[rule.Warning] != want[rule.Warning] || levels[rule.Info] != want[rule.Info] {
		t.Errorf("default levels = %v, want %v", levels, want)
	}
}

func TestSARIFLocationWithoutLine(t *testing.T) {
	t.Parallel()
	rep := &Report{Findings: []rule.Finding{
		{Rule: "load-error", Severity: rule.Error, File: "missing.yaml", Message: "cannot read"},
		{Rule: "load-error", Severity: rule.Error, Message: "no file at all"},
	}}
	var log sarifLog
	if err := json.Unmarshal(sarifOf(t, rep), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results
	if loc := res[0].Locations[0].PhysicalLocation; loc == nil || loc.Region != nil || loc.ArtifactLocation.URI != "missing.yaml" {
		t.Errorf("finding without a line: physical location %+v, want the file and no region", loc)
	}
	if len(res[1].Locations) != 0 {
		t.Errorf("finding without a file or object: locations %+v, want none", res[1].Locations)
	}
}

func TestArtifactURI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"manifests/app.yaml", "manifests/app.yaml"},
		{"./manifests/../app.yaml", "app.yaml"},
		{"dir with space/x.yaml", "dir%20with%20space/x.yaml"},
		{"100%.yaml", "100%25.yaml"},
		{"a:b.yaml", "./a:b.yaml"},
		{"/srv/k8s/app.yaml", "file:///srv/k8s/app.yaml"},
		{"<stdin>", StdinURI},
	} {
		if got := artifactOf(tc.file).URI; got != tc.want {
			t.Errorf("artifactOf(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

func TestRuleName(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"missing-os-pin":  "MissingOsPin",
		"load-error":      "LoadError",
		"hostprocess":     "Hostprocess",
		"sac-image-eol-2": "SacImageEol2",
	} {
		if got := ruleName(id); got != want {
			t.Errorf("ruleName(%q) = %q, want %q", id, got, want)
		}
	}
}
