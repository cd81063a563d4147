package simreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/simulate"
)

// TestWritersOnExamples renders the simulation of the repository's
// examples: the JSON report parses with its identity, summary and every
// outcome field, and the text names every workload and carries every
// Kubernetes message verbatim.
func TestWritersOnExamples(t *testing.T) {
	t.Parallel()
	ins, errs := manifest.Inputs([]string{"../../../examples"}, nil)
	if len(errs) > 0 {
		t.Fatalf("inputs: %v", errs[0])
	}
	objs, errs := manifest.ReadAll(ins)
	if len(errs) > 0 {
		t.Fatalf("read: %v", errs[0])
	}
	nodes, pools := cluster.Reference().Nodes()
	res, err := simulate.Run(t.Context(), simulate.Input{Nodes: nodes, Pools: pools, Objects: objs})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Pods       []map[string]any `json:"pods"`
		Summary    simulate.Counts  `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("JSON report does not parse: %v", err)
	}
	if doc.APIVersion != "winkube.io/v1alpha1" || doc.Kind != "SimulationReport" || len(doc.Pods) != len(res.Pods) || doc.Summary != res.Count() {
		t.Errorf("JSON report: %s %s, %d pods, summary %+v", doc.APIVersion, doc.Kind, len(doc.Pods), doc.Summary)
	}
	for _, p := range doc.Pods {
		for _, k := range []string{"workload", "pod", "node", "pending", "startFailure"} {
			if _, ok := p[k]; !ok {
				t.Errorf("JSON pod %v lacks %q", p["pod"], k)
			}
		}
	}
	var text bytes.Buffer
	if err := WriteText(&text, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Workloads {
		if !strings.Contains(text.String(), w.Workload+":") {
			t.Errorf("text report does not mention %s", w.Workload)
		}
	}
	for _, p := range res.Pods {
		for _, msg := range []string{p.RejectMessage, p.Message, p.StartFailure} {
			if msg != "" && !strings.Contains(text.String(), msg) {
				t.Errorf("text report lacks the verbatim message %q", msg)
			}
		}
	}
}
