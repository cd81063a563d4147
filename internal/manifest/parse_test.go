package manifest

import (
	"strconv"
	"strings"
	"testing"
)

// billionLaughs expands to 9^9 strings through nine levels of aliases.
const billionLaughs = `apiVersion: v1
kind: ConfigMap
metadata: {name: lol}
data:
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
  h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
  i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`

// TestAliasBombs: documents that expand without bound fail with the
// excessive-aliasing error, at the alias responsible, and without
// building the expansion.
// Not parallel: AllocsPerRun needs the process to itself.
func TestAliasBombs(t *testing.T) {
	const msg = "aliases expand the document by more than 1048576 nodes (excessive aliasing)"
	tests := []struct {
		name, text string
		line, col  int
	}{
		{"billion laughs", billionLaughs, 11, 6},
		{"alias of itself", "apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: x, self: [*m]}\n", 3, 31},
		{"wide", "a: &a [" + strings.Repeat("x,", 2000) + "x]\nb: &b [" + strings.Repeat("*a,", 600) + "*a]\n", 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := Document{File: "bomb.yaml", Line: 1, Data: []byte(tt.text)}
			_, errs := Decode(doc)
			if len(errs) != 1 || errs[0].Msg != msg || errs[0].Line != tt.line || errs[0].Column != tt.col {
				t.Fatalf("got %v, want %d:%d: %s", errs, tt.line, tt.col, msg)
			}
			// The expansion is never built: parsing the text is all the
			// work there is (a few thousand allocations, not millions).
			if allocs := testing.AllocsPerRun(1, func() { Decode(doc) }); allocs > 50_000 {
				t.Errorf("decoding the bomb made %.0f allocations", allocs)
			}
		})
	}
}

// TestAliases: ordinary anchors, aliases and merge keys expand as YAML
// says, an explicit key beating a merged one wherever it appears.
func TestAliases(t *testing.T) {
	t.Parallel()
	text := `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  labels: &labels {app: web, tier: front}
  annotations:
    <<: *labels
    tier: back
data:
  <<: [{a: "1", b: "2"}, {b: "3", c: "4"}]
  c: "5"
`
	objs, errs := Decode(Document{File: "f.yaml", Line: 1, Data: []byte(text)})
	if len(errs) > 0 || len(objs) != 1 {
		t.Fatalf("got %v, %v", objs, errs)
	}
	root := objs[0].Root
	for _, c := range []struct {
		n         *Node
		key, want string
	}{
		{root.Get("metadata").Get("annotations"), "app", "web"},
		{root.Get("metadata").Get("annotations"), "tier", "back"},
		{root.Get("data"), "a", "1"},
		{root.Get("data"), "b", "2"},
		{root.Get("data"), "c", "5"},
	} {
		if got := c.n.String(c.key); got != c.want {
			t.Errorf("%s = %q, want %q", c.key, got, c.want)
		}
	}
	if n := len(root.Get("data").Content); n != 6 {
		t.Errorf("data has %d nodes, want 3 pairs", n)
	}
}

// TestListObjects: a List's items are objects of their own, numbered,
// with positions in the file.
func TestListObjects(t *testing.T) {
	t.Parallel()
	text := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: svc, namespace: ns}\n- apiVersion: apps/v1\n  kind: DeploymentList\n  metadata: {name: d}\n"
	objs, errs := load(t, "list.yaml", text)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, o := range objs {
		got = append(got, strings.Join([]string{o.Ref(), strconv.Itoa(o.Doc), strconv.Itoa(o.Item), strconv.Itoa(o.Root.Line), strconv.Itoa(o.Root.Column)}, " "))
	}
	want := []string{"ConfigMap/first 0 -1 1 1", "Service/ns/svc 1 0 8 3", "DeploymentList/d 1 1 11 3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, ok := objs[1].Typed.(interface{ String() string }); !ok {
		t.Errorf("the Service item was not decoded: %T", objs[1].Typed)
	}
}

// TestCRLF: carriage returns never reach values.
func TestCRLF(t *testing.T) {
	t.Parallel()
	text := strings.ReplaceAll("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x # c\ndata:\n  plain: a b\n  quoted: \"q\"\n  literal: |\n    one\n    two\n  folded: >-\n    one\n    two\n", "\n", "\r\n")
	objs, errs := Decode(Document{File: "f.yaml", Line: 1, Data: []byte(text)})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	data := objs[0].Root.Get("data")
	want := map[string]string{"plain": "a b", "quoted": "q", "literal": "one\ntwo\n", "folded": "one two"}
	for k, v := range want {
		if got := data.String(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if got := objs[0].Name; got != "x" {
		t.Errorf("name = %q", got)
	}
}
