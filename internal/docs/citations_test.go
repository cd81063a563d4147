package docs

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/doctor"
)

// A citation a user can open: a web page (kubernetes.io, Microsoft's
// documentation, a repository on GitHub, a vendor's docs), or a source
// file of a repository at a named tag ("k8s.io/kubernetes v1.36.3
// pkg/kubelet/..."), which a reader finds at that tag.
var (
	webPage   = regexp.MustCompile(`(?:https?://)?(?:[a-z0-9-]+\.)+(?:io|com|org|dev|net|gov|sh)/[^\s)]+`)
	taggedSrc = regexp.MustCompile(`\b[\w.-]+/[\w.-]+ v\d+(?:\.\d+)*[\w.+-]* [\w./-]+`)
	seedRef   = regexp.MustCompile(`\bseeds? 0\d\d\b`)
)

func citable(s string) bool { return webPage.MatchString(s) || taggedSrc.MatchString(s) }

// TestCitationsCanBeOpened: every source a rule of any family or a doctor
// cause cites is one a user can open, and nothing the repository ships
// cites the private background documents (as "seed" and a number) the
// model was first written from.
func TestCitationsCanBeOpened(t *testing.T) {
	t.Parallel()
	check := func(what string, sources []string) {
		if len(sources) == 0 {
			t.Errorf("%s cites no source", what)
		}
		for _, s := range sources {
			if !citable(s) {
				t.Errorf("%s cites %q: name a page (kubernetes.io/docs/..., learn.microsoft.com/...) or a source file at a tag (k8s.io/kubernetes v1.36.3 pkg/...)", what, s)
			}
		}
	}
	for _, r := range catalogue.Rules() {
		check(r.Family.String()+" rule "+r.ID, r.Doc.Sources)
	}
	for _, c := range doctor.Causes() {
		check("cause "+c.ID, c.Sources)
	}

	files, err := exec.Command("git", "-C", "../..", "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00") {
		if name == "internal/docs/citations_test.go" {
			continue
		}
		data, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if seedRef.MatchString(line) {
				t.Errorf("%s:%d: %q cites a document a user cannot open; cite the upstream page or source file", name, i+1, seedRef.FindString(line))
			}
		}
	}
}
