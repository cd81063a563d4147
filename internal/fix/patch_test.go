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
