package fix

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/rule"
)

var windowsToleration = map[string]any{"key": "os", "operator": "Equal", "value": "windows", "effect": "NoSchedule"}

func set(path string, v any) rule.Edit { return rule.Edit{Op: rule.Set, Path: path, Value: v} }
func del(path string) rule.Edit        { return rule.Edit{Op: rule.Remove, Path: path} }
func add(path string, v any) rule.Edit { return rule.Edit{Op: rule.Append, Path: path, Value: v} }

func TestApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		edits []rule.Edit
		want  string
	}{
		{
			name:  "add key to existing block mapping",
			in:    "spec:\n  nodeSelector:\n    agentpool: win # pool\n  containers: []\n",
			edits: []rule.Edit{set("spec.nodeSelector[kubernetes.io/os]", "windows")},
			want:  "spec:\n  nodeSelector:\n    agentpool: win # pool\n    kubernetes.io/os: windows\n  containers: []\n",
		},
		{
			name:  "create nested mapping after the last entry, keeping comments",
			in:    "spec:\n  # the app\n  containers:\n  - name: a\n    image: x\n# trailing comment\n",
			edits: []rule.Edit{set("spec.os.name", "windows")},
			want:  "spec:\n  # the app\n  containers:\n  - name: a\n    image: x\n  os:\n    name: windows\n# trailing comment\n",
		},
		{
			name:  "four-space indentation and indented lists are followed",
			in:    "spec:\n    containers:\n        - name: a\n",
			edits: []rule.Edit{add("spec.tolerations", windowsToleration)},
			want:  "spec:\n    containers:\n        - name: a\n    tolerations:\n        - key: os\n          operator: Equal\n          value: windows\n          effect: NoSchedule\n",
		},
		{
			name:  "append to block list of flow items keeps flow items",
			in:    "tolerations:\n- {key: a, operator: Exists}\nx: 1\n",
			edits: []rule.Edit{add("tolerations", windowsToleration)},
			want:  "tolerations:\n- {key: a, operator: Exists}\n- {key: os, operator: Equal, value: windows, effect: NoSchedule}\nx: 1\n",
		},
		{
			name:  "append to flow list",
			in:    "spec:\n  tolerations: [{key: a, operator: Exists}]\n",
			edits: []rule.Edit{add("spec.tolerations", windowsToleration)},
			want:  "spec:\n  tolerations: [{key: a, operator: Exists}, {key: os, operator: Equal, value: windows, effect: NoSchedule}]\n",
		},
		{
			name:  "append to null list",
			in:    "spec:\n  tolerations:\n  containers: []\n",
			edits: []rule.Edit{add("spec.tolerations", windowsToleration)},
			want:  "spec:\n  tolerations:\n  - key: os\n    operator: Equal\n    value: windows\n    effect: NoSchedule\n  containers: []\n",
		},
		{
			name:  "set into empty flow mapping",
			in:    "spec:\n  nodeSelector: {}\n",
			edits: []rule.Edit{set("spec.nodeSelector[kubernetes.io/os]", "linux")},
			want:  "spec:\n  nodeSelector: {kubernetes.io/os: linux}\n",
		},
		{
			name:  "set into flow mapping",
			in:    "spec:\n  nodeSelector: {a: b}\n",
			edits: []rule.Edit{set("spec.nodeSelector[kubernetes.io/os]", "linux")},
			want:  "spec:\n  nodeSelector: {a: b, kubernetes.io/os: linux}\n",
		},
		{
			name:  "remove the only field removes its empty parent",
			in:    "spec:\n  securityContext:\n    runAsUser: 1000\n  containers: []\n",
			edits: []rule.Edit{del("spec.securityContext.runAsUser")},
			want:  "spec:\n  containers: []\n",
		},
		{
			name:  "remove a field in a list item",
			in:    "containers:\n- name: a\n  securityContext:\n    privileged: false\n    runAsNonRoot: true\n- name: b\n",
			edits: []rule.Edit{del("containers[0].securityContext.privileged")},
			want:  "containers:\n- name: a\n  securityContext:\n    runAsNonRoot: true\n- name: b\n",
		},
		{
			name:  "remove the key on the dash line hands the dash on",
			in:    "items:\n- medium: Memory\n  sizeLimit: 1Gi\n",
			edits: []rule.Edit{del("items[0].medium")},
			want:  "items:\n- sizeLimit: 1Gi\n",
		},
		{
			name:  "remove from flow mapping",
			in:    "securityContext: {runAsUser: 1000, fsGroup: 2000}\n",
			edits: []rule.Edit{del("securityContext.runAsUser")},
			want:  "securityContext: {fsGroup: 2000}\n",
		},
		{
			name:  "remove last entry of flow mapping",
			in:    "emptyDir: {sizeLimit: 1Gi, medium: Memory}\nx: 1\n",
			edits: []rule.Edit{del("emptyDir.medium")},
			want:  "emptyDir: {sizeLimit: 1Gi}\nx: 1\n",
		},
		{
			name:  "remove a block value with nested content",
			in:    "spec:\n  securityContext:\n    capabilities:\n      drop:\n      - ALL\n    runAsNonRoot: true\n",
			edits: []rule.Edit{del("spec.securityContext.capabilities")},
			want:  "spec:\n  securityContext:\n    runAsNonRoot: true\n",
		},
		{
			name:  "replace a quoted scalar",
			in:    "nodeSelector:\n  kubernetes.io/os: \"Windows\" # wrong case\n",
			edits: []rule.Edit{set("nodeSelector[kubernetes.io/os]", "windows")},
			want:  "nodeSelector:\n  kubernetes.io/os: \"windows\" # wrong case\n",
		},
		{
			name:  "CRLF line endings are kept",
			in:    "spec:\r\n  containers: []\r\n",
			edits: []rule.Edit{set("spec.os.name", "windows")},
			want:  "spec:\r\n  containers: []\r\n  os:\r\n    name: windows\r\n",
		},
		{
			name:  "string that looks like a number is quoted",
			in:    "spec:\n  nodeSelector:\n    a: b\n",
			edits: []rule.Edit{set("spec.nodeSelector[node.kubernetes.io/windows-build]", "10.0")},
			want:  "spec:\n  nodeSelector:\n    a: b\n    node.kubernetes.io/windows-build: \"10.0\"\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var edits []Edit
			for _, e := range tc.edits {
				edits = append(edits, Edit{Doc: 0, Item: -1, Edit: e})
			}
			got, res := Apply([]byte(tc.in), edits)
			for _, r := range res {
				if r.Err != nil {
					t.Fatalf("edit %v: %v", r.Edit.Edit, r.Err)
				}
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Apply mismatch (-want +got):\n%s", diff)
			}
			again, res2 := Apply(got, edits)
			for _, r := range res2 {
				if r.Changed && r.Op != rule.Remove {
					t.Errorf("second Apply changed %v", r.Edit.Edit)
				}
			}
			if string(again) != string(got) {
				t.Errorf("second Apply changed the text:\n%s", again)
			}
		})
	}
}

func TestApplyLeavesOtherDocumentsAlone(t *testing.T) {
	t.Parallel()
	docs := []string{
		"# first\napiVersion: v1\nkind: ConfigMap\ndata: {a: \"1\"}   \n",
		"apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n",
		"\n# a comment-only gap\n",
		"apiVersion: v1\nkind: Service\nspec:  {ports: [ {port: 80} ]}\n...\n",
	}
	in := strings.Join(docs, "---\n")
	got, res := Apply([]byte(in), []Edit{{Doc: 1, Item: -1, Edit: set("spec.os.name", "linux")}})
	if res[0].Err != nil || !res[0].Changed {
		t.Fatalf("edit not applied: %+v", res[0])
	}
	want := strings.Join([]string{docs[0], "apiVersion: v1\nkind: Pod\nspec:\n  containers: []\n  os:\n    name: linux\n", docs[2], docs[3]}, "---\n")
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestApplyListItem(t *testing.T) {
	t.Parallel()
	in := "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  spec:\n    containers: []\n- kind: Pod\n  spec:\n    containers: []\n"
	got, _ := Apply([]byte(in), []Edit{{Doc: 0, Item: 1, Edit: set("spec.os.name", "windows")}})
	want := "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  spec:\n    containers: []\n- kind: Pod\n  spec:\n    containers: []\n    os:\n      name: windows\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
