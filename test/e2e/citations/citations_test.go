package citations

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/doctor"
)

// kubeVersion is the Kubernetes release the control plane is built from
// (hack/build-controlplane.sh) and the model cites.
const kubeVersion = "v1.36.3"

var kubeFile = regexp.MustCompile(`\b(?:k8s\.io|kubernetes)/kubernetes ` + regexp.QuoteMeta(kubeVersion) + ` ([\w./-]+)`)

// TestKubernetesSourcesExist: every Kubernetes source path a rule, a cause
// or a cause's message pattern cites is a file or folder of
// k8s.io/kubernetes at the cited tag, so a reader who opens the citation
// finds it.
func TestKubernetesSourcesExist(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(strings.TrimSpace(string(out)), "k8s.io", "kubernetes@"+kubeVersion)
	if _, err := os.Stat(tree); err != nil {
		t.Fatalf("the Kubernetes %s module is not in the module cache (%v): run `make controlplane`, which downloads it", kubeVersion, err)
	}
	cited := map[string][]string{} // path -> who cites it
	add := func(who string, texts ...string) {
		for _, s := range texts {
			for _, m := range kubeFile.FindAllStringSubmatch(s, -1) {
				p := strings.TrimRight(m[1], ".,")
				cited[p] = append(cited[p], who)
			}
		}
	}
	for _, r := range catalogue.Rules() {
		add("rule "+r.ID, r.Doc.Sources...)
	}
	for _, c := range doctor.Causes() {
		add("cause "+c.ID, c.Sources...)
		for _, p := range c.Patterns {
			add("cause "+c.ID+" pattern", p.Source)
		}
	}
	t.Logf("%d Kubernetes paths cited", len(cited))
	if len(cited) < 10 {
		t.Fatalf("only %d Kubernetes paths cited; is the pattern broken?", len(cited))
	}
	for p, who := range cited {
		if _, err := os.Stat(filepath.Join(tree, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s cite k8s.io/kubernetes %s %s, which does not exist at that tag", strings.Join(who, ", "), kubeVersion, p)
		}
	}
}
