package fixreport

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnifiedDiffMatchesDiff compares with GNU diff -u on random edits.
func TestUnifiedDiffMatchesDiff(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("diff"); err != nil {
		t.Fatal("GNU diff is needed to check the diff: apt-get install diffutils")
	}
	r := rand.New(rand.NewSource(8))
	dir := t.TempDir()
	for n := range 200 {
		a := make([]string, r.Intn(40))
		for i := range a {
			a[i] = fmt.Sprintf("line %d\n", r.Intn(12))
		}
		b := append([]string(nil), a...)
		for range r.Intn(5) {
			i := r.Intn(len(b) + 1)
			switch r.Intn(3) {
			case 0:
				b = append(b[:i], append([]string{fmt.Sprintf("new %d\n", r.Intn(3))}, b[i:]...)...)
			default:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			}
		}
		before, after := strings.Join(a, ""), strings.Join(b, "")
		got := unifiedDiff("f", []byte(before), []byte(after))
		if before == after {
			if got != "--- a/f\n+++ b/f\n" {
				t.Fatalf("no change, diff %q", got)
			}
			continue
		}
		pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		os.WriteFile(pa, []byte(before), 0o644)
		os.WriteFile(pb, []byte(after), 0o644)
		// Minimal diffs are not unique; patch must turn a into b with ours.
		patch := exec.Command("patch", "-s", "-o", filepath.Join(dir, "out"), pa)
		patch.Stdin = strings.NewReader(got)
		if out, err := patch.CombinedOutput(); err != nil {
			t.Fatalf("case %d: patch rejects the diff: %v %s\n%s", n, err, out, got)
		}
		res, _ := os.ReadFile(filepath.Join(dir, "out"))
		if string(res) != after {
			t.Fatalf("case %d: patched %q, want %q\n%s", n, res, after, got)
		}
	}
}

// TestUnifiedDiffIsLinear diffs what fix does to a List of 20,000 Pods
// (a line added to each), which the previous diff (difflib) took minutes
// over, and a large file of repeated lines with a few edits; the time
// limit only tells a hang from an answer.
func TestUnifiedDiffIsLinear(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&a, "- name: p%d\n  spec:\n    containers: []\n", i)
		fmt.Fprintf(&b, "- name: p%d\n  spec:\n    containers: []\n    os: {name: windows}\n", i)
	}
	rep := strings.Repeat("  - name: x\n    value: y\n", 100000)
	for _, c := range []struct {
		a, b  string
		added int
	}{
		{a.String(), b.String(), 20000},
		{rep, "head: 1\n" + rep[:len(rep)/2] + "  - name: added\n" + rep[len(rep)/2:] + "tail: 1\n", 3},
	} {
		done := make(chan string, 1)
		go func() { done <- unifiedDiff("f", []byte(c.a), []byte(c.b)) }()
		select {
		case d := <-done:
			if got := strings.Count(d, "\n+") - 1; got != c.added || strings.Count(d, "\n-") != 0 { // - "+++ b/f"
				t.Errorf("diff adds %d lines, want %d and no removal:\n%.2000s", got, c.added, d)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the diff of a large file did not finish")
		}
	}
}
