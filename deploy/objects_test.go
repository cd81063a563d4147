package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/manifest"
)

// object is one decoded document with the raw text it came from.
type object struct {
	Kind, Name string
	Data       []byte         // the document's YAML
	Fields     map[string]any // as sigs.k8s.io/yaml decodes it (what kubectl sends)
}

// decodeStream splits a YAML stream into its non-empty documents.
func decodeStream(t *testing.T, name string, data []byte) []object {
	t.Helper()
	s := manifest.NewSplitter(name, bytes.NewReader(data), false)
	var out []object
	for {
		doc, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var m map[string]any
		if err := yaml.UnmarshalStrict(doc.Data, &m); err != nil {
			t.Fatalf("%s:%d: %v", name, doc.Line, err)
		}
		if m == nil {
			continue
		}
		meta, _ := m["metadata"].(map[string]any)
		kind, _ := m["kind"].(string)
		objName, _ := meta["name"].(string)
		out = append(out, object{Kind: kind, Name: objName, Data: doc.Data, Fields: m})
	}
}

// readManifests decodes deploy/webhook.yaml.
func readManifests(t *testing.T) []object {
	t.Helper()
	data, err := os.ReadFile("webhook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return decodeStream(t, "webhook.yaml", data)
}

// only returns the one object of the kind, failing the test otherwise.
func only(t *testing.T, objs []object, kind string) object {
	t.Helper()
	var found []object
	for _, o := range objs {
		if o.Kind == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one %s, found %d", kind, len(found))
	}
	return found[0]
}

// into decodes an object into a typed API struct, rejecting unknown fields
// so that a misspelt field fails here rather than being dropped by kubectl.
func into(t *testing.T, o object, v any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(o.Data, v); err != nil {
		t.Fatalf("%s %s: %v", o.Kind, o.Name, err)
	}
}

func kinds(objs []object) string {
	var ks []string
	for _, o := range objs {
		ks = append(ks, o.Kind+"/"+o.Name)
	}
	return strings.Join(ks, ", ")
}
