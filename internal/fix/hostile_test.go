package fix

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/rule"
)

// Regression tests for issue 8, item 1: fix edits text it understands, or
// refuses. Each case failed on the code before the issue (a panic, a
// corrupted file, or an edit in the wrong document).

func TestApplyKeepsEveryLineBreak(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"CR only", "spec:\r  containers: []\r", "spec:\r  containers: []\r  os:\r    name: windows\r"},
		{"CRLF then LF", "spec:\r\n  containers: []\n  hostname: a\r\n", "spec:\r\n  containers: []\n  hostname: a\r\n  os:\r\n    name: windows\r\n"},
		{"LF then CRLF, no final break", "spec:\n  containers: []\r\n  hostname: a", "spec:\n  containers: []\r\n  hostname: a\n  os:\n    name: windows"},
		{"CR inside a multi-document file", "a: 1\r---\rspec:\r  containers: []\r", "a: 1\r---\rspec:\r  containers: []\r  os:\r    name: windows\r"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := strings.Count(tc.in, "---")
			got, res := Apply([]byte(tc.in), []Edit{{Doc: doc, Item: -1, Edit: set("spec.os.name", "windows")}})
			mustApply(t, res)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyQuotesWhatAPlainScalarWouldMisread(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		edit     rule.Edit
		want     string
	}{
		{"flow mapping ending in a plain scalar", "volumeMounts: [{name: data, mountPath: /data}]\nx: 1\n",
			set("volumeMounts[0].mountPath", `C:\data`), "volumeMounts: [{name: data, mountPath: \"C:\\\\data\"}]\nx: 1\n"},
		{"multi-byte text earlier on the line", "nodeSelector: {größe: groß, kubernetes.io/os: linux}\n",
			set("nodeSelector[kubernetes.io/os]", "windows"), "nodeSelector: {größe: groß, kubernetes.io/os: windows}\n"},
		{"multi-byte text before an insertion", "metadata: {name: café, labels: {ü: ö}}\n",
			set("metadata.labels[app]", "a, b"), "metadata: {name: café, labels: {ü: ö, app: \"a, b\"}}\n"},
		{"indicator at the start", "env:\n  a: b\n",
			set("env.x", "- not a list"), "env:\n  a: b\n  x: '- not a list'\n"},
		{"comment marker", "env:\n  a: b\n",
			set("env.x", "a #b"), "env:\n  a: b\n  x: 'a #b'\n"},
		{"single-quoted stays single-quoted", "a: 'x'\n", set("a", "it's"), "a: 'it''s'\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, res := Apply([]byte(tc.in), []Edit{{Item: -1, Edit: tc.edit}})
			mustApply(t, res)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyJSONStaysJSON(t *testing.T) {
	t.Parallel()
	in := "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"spec\": {\n    \"nodeSelector\": null,\n    \"containers\": [{\"name\": \"a\", \"image\": \"x\"}]\n  }\n}\n"
	edits := []Edit{
		{Item: -1, Edit: set("spec.os.name", "windows")},
		{Item: -1, Edit: set("spec.nodeSelector[kubernetes.io/os]", "windows")},
		{Item: -1, Edit: add("spec.tolerations", windowsToleration)},
		{Item: -1, Edit: set("spec.containers[0].image", `C:\x`)},
	}
	got, res := applyText("p.json", []byte(in), edits, true)
	mustApply(t, res)
	if !json.Valid(got) {
		t.Fatalf("not JSON any more:\n%s", got)
	}
	var obj map[string]any
	json.Unmarshal(got, &obj)
	spec := obj["spec"].(map[string]any)
	if spec["os"].(map[string]any)["name"] != "windows" || spec["nodeSelector"].(map[string]any)["kubernetes.io/os"] != "windows" || len(spec["tolerations"].([]any)) != 1 {
		t.Errorf("edits missing:\n%s", got)
	}
}

func TestApplyKeepsTheFileEncoding(t *testing.T) {
	t.Parallel()
	text := "spec:\r\n  containers: []  # café\r\n"
	for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		raw := order.AppendUint16(nil, 0xFEFF)
		for _, u := range utf16.Encode([]rune(text)) {
			raw = order.AppendUint16(raw, u)
		}
		for _, data := range [][]byte{raw, append([]byte("\xef\xbb\xbf"), text...)} {
			utf8Text, enc, err := decodeFile(data)
			if err != nil {
				t.Fatal(err)
			}
			out, res := Apply(utf8Text, []Edit{{Item: -1, Edit: set("spec.os.name", "windows")}})
			mustApply(t, res)
			got, _, err := decodeFile(enc.encode(out))
			if err != nil || string(got) != text+"  os:\r\n    name: windows\r\n" {
				t.Errorf("round trip = %q, %v", got, err)
			}
			if enc.encode(out)[0] != data[0] {
				t.Errorf("encoding changed: %x..., want %x...", enc.encode(out)[:2], data[:2])
			}
		}
	}
	odd := []byte{0xFF, 0xFE, 'a', 0, 'b'}
	if _, _, err := decodeFile(odd); err == nil {
		t.Error("odd-length UTF-16 accepted; it cannot be written back unchanged")
	}
}

func TestApplyRefusesSharedNodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		edit     rule.Edit
		want     string
	}{
		{"anchored mapping", "a: &sel\n  os: linux\nb: *sel\n", set("a.os", "windows"), "anchor &sel"},
		{"alias", "a: &sel\n  os: linux\nb: *sel\n", set("b.os", "windows"), "alias (*sel)"},
		{"inside an anchored subtree", "spec: &s\n  nodeSelector:\n    os: linux\nother: *s\n", set("spec.nodeSelector.os", "windows"), "anchor &s"},
		{"merged mapping", "base: &b\n  x: 1\nspec:\n  <<: *b\n  y: 2\n", set("spec.x", 3), "merge key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, res := Apply([]byte(tc.in), []Edit{{Item: -1, Edit: tc.edit}})
			if string(got) != tc.in {
				t.Errorf("text changed:\n%s", got)
			}
			if len(res) != 1 || res[0].Err == nil || !strings.Contains(res[0].Err.Error(), tc.want) {
				t.Errorf("result %+v, want a refusal mentioning %q", res, tc.want)
			}
		})
	}
}

// TestApplyDocumentStartingOnItsSeparator: "--- {..}" is a document of its
// own; the splitter lint uses numbers it, so the edit lands there.
func TestApplyDocumentStartingOnItsSeparator(t *testing.T) {
	t.Parallel()
	in := "a: 1\n--- {spec: {containers: []}}\n---\nspec:\n  containers: []\n"
	got, res := Apply([]byte(in), []Edit{{Doc: 1, Item: -1, Edit: set("spec.os.name", "windows")}})
	mustApply(t, res)
	want := "a: 1\n--- {spec: {containers: [], os: {name: windows}}}\n---\nspec:\n  containers: []\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestApplyRefusesWhatDoesNotReadBack: a multi-line plain scalar is cut
// at its first line; the result would read "x continued". The check after
// rendering catches it and the file is left alone.
func TestApplyRefusesWhatDoesNotReadBack(t *testing.T) {
	t.Parallel()
	in := "a:\n  b: first\n    continued\nc: 1\n"
	got, res := Apply([]byte(in), []Edit{{Item: -1, Edit: set("a.b", "x")}, {Item: -1, Edit: set("c", 2)}})
	if string(got) != in {
		t.Errorf("text changed:\n%s", got)
	}
	for _, r := range res {
		if r.Err == nil || !strings.Contains(r.Err.Error(), "not written") || r.Changed {
			t.Errorf("edit %v: %+v, want a refusal", r.Edit.Edit, r)
		}
	}
}

func TestApplyNestedListItem(t *testing.T) {
	t.Parallel()
	in := "kind: List\nitems:\n- kind: ConfigMap\n- kind: List\n  items:\n  - kind: Pod\n    spec:\n      containers: []\n"
	got, res := Apply([]byte(in), []Edit{{Item: 1, Edit: set("spec.os.name", "windows")}})
	mustApply(t, res)
	want := "kind: List\nitems:\n- kind: ConfigMap\n- kind: List\n  items:\n  - kind: Pod\n    spec:\n      containers: []\n      os:\n        name: windows\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPatchIsAllOrNothing(t *testing.T) {
	t.Parallel()
	var obj map[string]any
	json.Unmarshal([]byte(`{"spec":{"containers":[{"name":"a"}],"nodeSelector":{"a":"b"}}}`), &obj)
	before, _ := json.Marshal(obj)
	_, err := Patch(obj, []rule.Edit{
		set("spec.nodeSelector[kubernetes.io/os]", "windows"),
		add("spec.tolerations", windowsToleration),
		set("spec.containers[5].image", "x"), // fails
	})
	if err == nil {
		t.Fatal("Patch succeeded")
	}
	if after, _ := json.Marshal(obj); string(after) != string(before) {
		t.Errorf("obj changed by a failed patch:\n%s\nwant\n%s", after, before)
	}
}

func mustApply(t *testing.T, res []Applied) {
	t.Helper()
	for _, r := range res {
		if r.Err != nil || !r.Changed {
			t.Fatalf("edit %v: changed %v, %v", r.Edit.Edit, r.Changed, r.Err)
		}
	}
}
