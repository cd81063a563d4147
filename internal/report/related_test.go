package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/winkube/winkube/internal/rule"
)

// related is the fixture with its first finding rendered from a chart:
// the template position first, the rendered one related.
func related() *Report {
	r := fixture()
	f := &r.Findings[0]
	f.Related = []rule.Location{{File: f.File + " (rendered)", Line: 40, Column: 9, Message: "rendered"}}
	f.File, f.Line, f.Column = "chart/templates/deployment.yaml", 21, 9
	return r
}

// TestRelatedLocations: the rendered position of a chart's finding is in
// every format: a line under the finding in text, related in JSON,
// relatedLocations in SARIF (which still validates).
func TestRelatedLocations(t *testing.T) {
	t.Parallel()
	r := related()
	f := r.Findings[0]

	var text bytes.Buffer
	if err := Text(&text, r, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "chart/templates/deployment.yaml:21:9: "
	wantRel := "    rendered: " + f.Related[0].File + ":40:9\n"
	if i := strings.Index(text.String(), want); i < 0 || !strings.Contains(text.String()[i:], wantRel) {
		t.Errorf("text lacks %q followed by %q:\n%s", want, wantRel, text.String())
	}

	var js bytes.Buffer
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Findings []struct {
			Related []jsonLocation `json:"related"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]jsonLocation{{File: f.Related[0].File, Line: 40, Column: 9, Message: "rendered"}}, out.Findings[0].Related); diff != "" {
		t.Errorf("JSON related (-want +got):\n%s", diff)
	}

	log := sarifOf(t, r)
	var s struct {
		Runs []struct {
			Results []struct {
				RelatedLocations []sarifLocation `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(log, &s); err != nil {
		t.Fatal(err)
	}
	rel := s.Runs[0].Results[0].RelatedLocations
	if len(rel) != 1 || rel[0].PhysicalLocation == nil || rel[0].PhysicalLocation.Region == nil || rel[0].PhysicalLocation.Region.StartLine != 40 || rel[0].Message.Text != "rendered" {
		t.Errorf("SARIF relatedLocations = %+v", rel)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifSchema(t).Validate(inst); err != nil {
		t.Errorf("SARIF with relatedLocations does not validate:\n%v", err)
	}
}
