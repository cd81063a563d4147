package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// load writes text to a file called name in a temporary folder and reads
// it the way lint does. It returns the objects and every error as
// "line:col: message", after checking that each error names the file.
func load(t *testing.T, name, text string) ([]*Object, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, ierrs := Inputs([]string{path}, nil)
	if len(ierrs) > 0 {
		t.Fatal(ierrs[0])
	}
	objs, errs := ReadAll(ins)
	var got []string
	for _, e := range errs {
		if e.File != path {
			t.Errorf("error %q names file %q, want %q", e.Msg, e.File, path)
		}
		if e.Hint == "" {
			t.Errorf("error %q has no hint", e.Msg)
		}
		got = append(got, fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg))
	}
	return objs, got
}

// configMap is a valid document to put around broken ones: it must still
// be read.
const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n"

func deploymentWith(spec string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" + spec
}

// TestLoadErrors covers every class of input problem: each names the
// file, line, column and what is wrong, and the other documents of the
// file are still read.
func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, text string
		want             []string
		objects          int
	}{
		{name: "tab indentation", text: configMap + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n",
			want: []string{"9:1: invalid YAML: found character that cannot start any token"}, objects: 1},
		{name: "tab after indentation", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  \tname: x\n",
			want: []string{"4:3: invalid YAML: found character that cannot start any token"}},
		{name: "duplicate key", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {}\n  name: b\n---\n" + configMap,
			want: []string{`6:3: mapping key "name" already defined at line 4`}, objects: 1},
		{name: "duplicate key in a list item", text: deploymentWith("  template:\n    spec:\n      containers:\n      - name: a\n        image: x\n        name: b\n"),
			want: []string{`11:9: mapping key "name" already defined at line 9`}},
		{name: "key indented too little", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n namespace: b\n",
			want: []string{"5:2: invalid YAML: did not find expected key"}},
		{name: "key indented too much", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n    namespace: b\n",
			want: []string{"5:0: invalid YAML: mapping values are not allowed in this context"}},
		{name: "list item indented too little", text: deploymentWith("  template:\n    spec:\n      containers:\n        - name: a\n       - name: b\n"),
			want: []string{"10:8: invalid YAML: did not find expected key"}},
		{name: "unclosed quote", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"a\n",
			want: []string{"4:0: invalid YAML: found unexpected end of stream"}},
		{name: "helm template", text: configMap + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {{ include \"app.fullname\" . }}\n",
			want: []string{`9:9: unrendered Helm template expression "{{ include \"app.fullname\" . }}"`}, objects: 1},
		{name: "helm control structure", text: "{{- if .Values.enabled }}\n" + configMap + "{{- end }}\n",
			want: []string{`1:1: unrendered Helm template expression "{{- if .Values.enabled }}"`}},
		{name: "alert template is not helm", text: configMap + "data:\n  summary: \"{{ $labels.instance }} is down\"\n", objects: 1},
		{name: "placeholder <image-name>", text: deploymentWith("  template:\n    spec:\n      containers:\n      - name: app\n        image: <image-name>\n"),
			want: []string{`10:16: image: placeholder "<image-name>" was never filled in`}, objects: 1},
		{name: "placeholder __acrName__", text: deploymentWith("  template:\n    spec:\n      containers:\n      - name: app\n        image: __acrName__.azurecr.io/app:1.0\n"),
			want: []string{`10:16: image: placeholder "__acrName__" was never filled in`}, objects: 1},
		{name: "placeholder ${VAR}", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: ${NAMESPACE}\n",
			want: []string{`5:14: namespace: placeholder "${NAMESPACE}" was never filled in`}, objects: 1},
		{name: "placeholder in free text is fine", text: configMap + "data:\n  script: echo ${HOME} <name>\n", objects: 1},
		{name: "wrong type replicas", text: deploymentWith("  replicas: \"x\"\n"),
			want: []string{`6:13: spec.replicas: expected an integer, got string "x"`}, objects: 1},
		{name: "wrong type boolean", text: deploymentWith("  template:\n    spec:\n      hostNetwork: \"true\"\n"),
			want: []string{`8:20: spec.template.spec.hostNetwork: expected a boolean, got string "true"`}, objects: 1},
		{name: "wrong type list", text: deploymentWith("  template:\n    spec:\n      containers:\n        name: a\n"),
			want: []string{`9:9: spec.template.spec.containers: expected a list, got a mapping`}, objects: 1},
		{name: "wrong type quantity", text: deploymentWith("  template:\n    spec:\n      containers:\n      - name: a\n        resources:\n          limits:\n            memory: 1 GB\n"),
			want: []string{`12:21: spec.template.spec.containers[0].resources.limits[memory]: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`}, objects: 1},
		{name: "empty documents", text: "---\n---\n# only a comment\n---\n\n...\n"},
		{name: "null document", text: "--- ~\n---\nnull\n"},
		{name: "not kubernetes", text: "image:\n  repository: nginx\n  tag: latest\n",
			want: []string{"1:1: not a Kubernetes object: apiVersion or kind is missing"}},
		{name: "not kubernetes: list", text: "- a\n- b\n",
			want: []string{"1:1: not a Kubernetes object: the document is a list"}},
		{name: "not kubernetes: text", text: "# a README\nsome text\n",
			want: []string{"2:1: not a Kubernetes object: the document is string"}},
		{name: "binary", text: configMap + "---\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
			want: []string{"8:1: binary content (NUL byte)"}, objects: 1},
		{name: "invalid UTF-8", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n",
			want: []string{"4:12: invalid YAML: incomplete UTF-8 octet sequence"}},
		{name: "control character", text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\x07b\n",
			want: []string{"4:10: invalid YAML: control characters are not allowed"}},
		{name: "list items", text: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n  spec: {hostPID: 1}\n",
			want: []string{`10:19: spec.hostPID: expected a boolean, got number "1"`}, objects: 2},
		{name: "list items not a list", text: "apiVersion: v1\nkind: List\nitems:\n  a: b\n",
			want: []string{"4:3: items: expected a list, got a mapping"}},
		{name: "list item not an object", text: "apiVersion: v1\nkind: ConfigMapList\nitems:\n- just a string\n",
			want: []string{"4:3: not a Kubernetes object: the document is string"}},
		{name: "json", file: "d.json", text: "{\n  \"apiVersion\": \"apps/v1\",\n  \"kind\": \"Deployment\",\n  \"metadata\": {\"name\": \"web\"},\n  \"spec\": {\"replicas\": \"3\"}\n}\n",
			want: []string{`5:24: spec.replicas: expected an integer, got string "3"`}, objects: 1},
		{name: "json is one document", file: "d.json", text: "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n\"metadata\": {\"name\": \"a\"}, \"data\": {\"x\":\n\"---\"}}\n", objects: 1},
		{name: "byte order mark", text: "\xef\xbb\xbf" + deploymentWith("  replicas: yes\n"),
			want: []string{`6:13: spec.replicas: expected an integer, got string "yes"`}, objects: 1},
		{name: "CRLF", text: strings.ReplaceAll(configMap+"  name: b\n---\n"+configMap, "\n", "\r\n"),
			want: []string{`5:3: mapping key "name" already defined at line 4`}, objects: 1},
		{name: "separator with comment", text: "--- # first\n" + configMap + "--- # second\n" + deploymentWith("  replicas: x\n"),
			want: []string{`12:13: spec.replicas: expected an integer, got string "x"`}, objects: 2},
		{name: "content after separator", text: configMap + "--- {apiVersion: v1, kind: Service, metadata: {name: s}, spec: {type: [x]}}\n",
			want: []string{`5:71: spec.type: expected string, got a list`}, objects: 2},
		{name: "document end marker", text: configMap + "...\n" + configMap + "...\n# trailing comment\n", objects: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := tt.file
			if file == "" {
				file = "in.yaml"
			}
			objs, got := load(t, file, tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if len(objs) != tt.objects {
				t.Errorf("got %d objects, want %d", len(objs), tt.objects)
			}
		})
	}
}
