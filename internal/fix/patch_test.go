package fix

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/rule"
)

func TestPatch(t *testing.T) {
	t.Parallel()
	obj := map[string]any{}
	if err := json.Unmarshal([]byte(`{"spec":{"template":{"spec":{
		"nodeSelector":{"agentpool":"win"},
		"securityContext":{"runAsUser":1000},
		"tolerations":[{"key":"os","operator":"Equal","value":"windows","effect":"NoSchedule"}],
		"containers":[{"name":"a","image":"x"}]}}}}`), &obj); err != nil {
		t.Fatal(err)
	}
	ops, err := Patch(obj, []rule.Edit{
		set("spec.template.spec.nodeSelector[kubernetes.io/os]", "windows"),
		set("spec.template.spec.os.name", "windows"),
		del("spec.template.spec.securityContext.runAsUser"),
		del("spec.template.spec.hostPID"),
		add("spec.template.spec.tolerations", windowsToleration),
		add("spec.template.spec.containers[0].env", map[string]any{"name": "A", "value": "1"}),
		set("spec.template.spec.os.name", "windows"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []PatchOp{
		{Op: "add", Path: "/spec/template/spec/nodeSelector/kubernetes.io~1os", Value: "windows"},
		{Op: "add", Path: "/spec/template/spec/os", Value: map[string]any{"name": "windows"}},
		{Op: "remove", Path: "/spec/template/spec/securityContext/runAsUser"},
		{Op: "add", Path: "/spec/template/spec/containers/0/env", Value: []any{map[string]any{"name": "A", "value": "1"}}},
	}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("Patch mismatch (-want +got):\n%s", diff)
	}
}

// A list item (an args string) is replaced in place; setting it to its
// own value is no operation, and an index past the end is an error that
// leaves the object as it was.
func TestPatchListItem(t *testing.T) {
	t.Parallel()
	obj := map[string]any{}
	if err := json.Unmarshal([]byte(`{"spec":{"containers":[{"name":"a","args":["--db=sql.data.svc","-v"]}]}}`), &obj); err != nil {
		t.Fatal(err)
	}
	ops, err := Patch(obj, []rule.Edit{
		set("spec.containers[0].args[0]", "--db=sql.data.svc.cluster.local"),
		set("spec.containers[0].args[1]", "-v"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []PatchOp{{Op: "replace", Path: "/spec/containers/0/args/0", Value: "--db=sql.data.svc.cluster.local"}}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("Patch mismatch (-want +got):\n%s", diff)
	}
	if _, err := Patch(obj, []rule.Edit{set("spec.containers[0].args[0]", "x"), set("spec.containers[0].args[5]", "y")}); err == nil {
		t.Fatal("setting args[5] of two args: no error")
	}
	if got := obj["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["args"].([]any)[0]; got != "--db=sql.data.svc.cluster.local" {
		t.Errorf("a failed patch left args[0] = %v", got)
	}
}
