package manifest

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/winkube/winkube/test/corpusgen"
)

// TestDecodeMatchesAPIServer: the reflection decoder gives the same typed
// object as the API server's JSON decoding (case-sensitive, sigs.k8s.io/json)
// of the same document, on the generated corpus and the rule fixtures.
func TestDecodeMatchesAPIServer(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := corpusgen.WriteStream(&buf, corpusgen.Options{Objects: 400, Seed: 11, Unreadable: true}); err != nil {
		t.Fatal(err)
	}
	var docs []Document
	s := NewSplitter("gen.yaml", &buf, false)
	for {
		d, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	docs = append(docs, documents(t, "../rules/testdata")...)
	typed := 0
	for _, d := range docs {
		objs, errs := Decode(d)
		if len(errs) > 0 {
			continue
		}
		for _, o := range objs {
			if o.Typed == nil {
				continue
			}
			typed++
			want := reflect.New(reflect.TypeOf(o.Typed).Elem()).Interface()
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(o.Root.AppendJSON(nil), want); err != nil {
				t.Errorf("%s:%d: the API server's decoding fails where ours did not: %v", d.File, o.Root.Line, err)
				continue
			}
			if diff := cmp.Diff(want, o.Typed); diff != "" {
				t.Errorf("%s:%d: %s decoded differently (-API server +winkube):\n%s", d.File, o.Root.Line, o.Ref(), diff)
			}
		}
	}
	if typed < 300 {
		t.Errorf("only %d typed objects compared", typed)
	}
}

// TestCommonTypes: the shortcuts for IntOrString and Quantity agree with
// their UnmarshalJSON, errors included.
func TestCommonTypes(t *testing.T) {
	t.Parallel()
	doc := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    ports: [{containerPort: 80, name: http}]\n    readinessProbe: {httpGet: {port: %s}}\n    resources: {limits: {memory: %s}}\n"
	for _, c := range []struct{ port, memory string }{
		{"8080", "1Gi"}, {"http", "500m"}, {"0x1F", "\" 1Gi \""}, {"\"80\"", "1e3"}, {"1.0", "'2'"},
		{"99999999999", "1Gi"}, {"-1", "\"\\t1Gi\""}, {"true", "1 GB"}, {"[1]", "{a: b}"}, {"~", "\"1\\\"Gi\""},
	} {
		text := fmt.Sprintf(doc, c.port, c.memory)
		objs, errs := Decode(Document{File: "p.yaml", Line: 1, Data: []byte(text)})
		var pod corev1.Pod
		apiErr := sigsjson.UnmarshalCaseSensitivePreserveInts(objs[0].Root.AppendJSON(nil), &pod)
		if (len(errs) > 0) != (apiErr != nil) {
			t.Errorf("port %s, memory %s: winkube errors %v, API server error %v", c.port, c.memory, errs, apiErr)
			continue
		}
		if apiErr == nil {
			if diff := cmp.Diff(&pod, objs[0].Typed); diff != "" {
				t.Errorf("port %s, memory %s: (-API server +winkube)\n%s", c.port, c.memory, diff)
			}
		}
	}
}
