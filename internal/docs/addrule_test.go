package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/catalogue"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules/rulestest"
)

// TestAddRule walks CONTRIBUTING.md's path for a new rule on a copy of the
// catalogue: a documented value in a family's list passes Validate, its
// fixtures run under rulestest.Run, and the docs generator documents it.
func TestAddRule(t *testing.T) {
	t.Parallel()
	throwaway := &rule.Rule{
		ID: "throwaway-host-network", Title: "A workload uses the host's network", Severity: rule.Warning, Category: rule.LinuxOnly,
		Doc: rule.Doc{
			What:    "Reports hostNetwork: true.",
			Why:     "A test rule: it exists only in this test.",
			Fix:     "Remove hostNetwork.",
			Sources: []string{"kubernetes.io/docs/concepts/windows/intro/ (Windows pods and containers: compatibility)"},
		},
		Workload: func(p *rule.Pass) {
			if p.Workload.Spec.HostNetwork {
				p.Reportf(p.Workload.SpecPath.Child("hostNetwork"), "hostNetwork is set")
			}
		},
	}
	c := *catalogue.Default()
	c.Lint = append(c.Lint[:len(c.Lint):len(c.Lint)], throwaway)
	if err := catalogue.Validate(&c); err != nil {
		t.Fatalf("Validate refuses a documented rule: %v", err)
	}

	dir := t.TempDir()
	fixtures := filepath.Join(dir, throwaway.ID)
	if err := os.Mkdir(fixtures, 0o755); err != nil {
		t.Fatal(err)
	}
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {kubernetes.io/os: linux}\n%s  containers: [{name: c, image: nginx}]\n"
	for name, body := range map[string]string{
		"fire.yaml":  strings.Replace(pod, "%s", "  hostNetwork: true  # want \"hostNetwork is set\"\n", 1),
		"quiet.yaml": strings.Replace(pod, "%s", "", 1),
	} {
		if err := os.WriteFile(filepath.Join(fixtures, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rulestest.Run(t, dir, throwaway)

	var b bytes.Buffer
	if err := Rules(&b, &c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n### throwaway-host-network\n", "[`throwaway-host-network`](#throwaway-host-network)", "`winkube.io/ignore: throwaway-host-network`"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the generated catalogue lacks %q", want)
		}
	}
	if strings.Contains(page(t, "rules.md"), "throwaway-host-network") {
		t.Error("the throwaway rule leaked into the default catalogue")
	}
}
