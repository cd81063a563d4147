package report

import (
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// jsonFields lists the JSON names of t's fields, walking nested structs,
// slices and embedded structs.
func jsonFields(t reflect.Type, seen map[reflect.Type]bool, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name != "" || !f.Anonymous {
			if name == "" {
				name = f.Name
			}
			out[name] = true
		}
		jsonFields(f.Type, seen, out)
	}
}

// TestJSONReportDoc keeps docs/json-report.md in step with the report
// structs: every field name must be documented, in backquotes.
func TestJSONReportDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/json-report.md")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	jsonFields(reflect.TypeFor[jsonReport](), map[reflect.Type]bool{}, names)
	if len(names) < 20 {
		t.Fatalf("found only %d field names in the report structs: %v", len(names), names)
	}
	var missing []string
	for name := range names {
		if !strings.Contains(string(doc), "`"+name+"`") {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("docs/json-report.md does not document the JSON fields %s", strings.Join(missing, ", "))
	}
	if !strings.Contains(string(doc), JSONAPIVersion) {
		t.Errorf("docs/json-report.md does not name apiVersion %s", JSONAPIVersion)
	}
}
