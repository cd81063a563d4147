package fixreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rule"
)

var (
	before = []fix.File{
		{Name: "a.yaml", Data: []byte("a: 1\nb: 2\n")},
		{Name: "same.yaml", Data: []byte("c: 3\n")},
		{Name: Stdin, Data: []byte("d: 4\n")},
	}
	result = &fix.Result{
		Files: []*fix.FileResult{
			{Name: "a.yaml", After: []byte("a: 1\nb: 3\n"), Notes: []string{"set b [rule-x]"}},
			{Name: "same.yaml", After: []byte("c: 3\n"), Failures: []string{"cannot edit c"}},
			{Name: Stdin, After: []byte("d: 5\n")},
		},
		Skipped: []rule.Finding{{Rule: "unsafe-b"}, {Rule: "unsafe-a"}, {Rule: "unsafe-b"}},
	}
)

func TestWriteDiff(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteDiff(&b, before, result, false); err != nil {
		t.Fatal(err)
	}
	want := "# a.yaml: set b [rule-x]\n--- a/a.yaml\n+++ b/a.yaml\n@@ -1,2 +1,2 @@\n a: 1\n-b: 2\n+b: 3\nd: 5\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b.Reset()
	if err := WriteDiff(&b, before, result, true); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"\x1b[31m-b: 2\x1b[0m\n", "\x1b[32m+b: 3\x1b[0m\n", "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m\n"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("coloured diff lacks %q:\n%q", line, b.String())
		}
	}
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteJSON(&b, before, result); err != nil {
		t.Fatal(err)
	}
	var got jsonReport
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := jsonReport{Header: report.Header{APIVersion: APIVersion, Kind: Kind}, Skipped: []string{"unsafe-a", "unsafe-b"}, Files: []jsonFile{
		{File: "a.yaml", Changed: true, Fixes: []string{"set b [rule-x]"}, Failures: []string{}},
		{File: "same.yaml", Changed: false, Fixes: []string{}, Failures: []string{"cannot edit c"}},
		{File: Stdin, Changed: true, Fixes: []string{}, Failures: []string{}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
