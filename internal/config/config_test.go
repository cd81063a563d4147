package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/rule"
)

var known = []*rule.Rule{
	{ID: "missing-os-pin", Severity: rule.Warning},
	{ID: "windows-forbidden-field", Severity: rule.Error},
	{ID: "windows-linux-path", Severity: rule.Info},
}

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	p := write(t, `apiVersion: winkube.io/v1alpha1
kind: Config
kubernetesVersion: "1.36"
rulez: {}
cluster:
  pools:
  - name: win
    count: 2
    os: windows
    alocatable: 3
`)
	_, err := Load(p, known)
	if err == nil {
		t.Fatal("Load accepted unknown fields")
	}
	msg := err.Error()
	for _, want := range []string{
		p + `:4:1: unknown field "rulez" (did you mean "rules"?)`,
		p + `:10:5: cluster.pools[0]: unknown field "alocatable"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not contain %q:\n%s", want, msg)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	p := write(t, `apiVersion: winkube.io/v1beta9
kind: Settings
kubernetesVersion: "2.0"
rules:
  disable: [no-such-rule]
  severity: {missing-os-pin: fatal}
cluster:
  pools:
  - {name: a, count: 1, os: plan9}
`)
	_, err := Load(p, known)
	if err == nil {
		t.Fatal("Load accepted an invalid config")
	}
	for _, want := range []string{
		"apiVersion: must be winkube.io/v1alpha1",
		"kind: must be Config",
		"kubernetesVersion: invalid Kubernetes version",
		`rules.disable: unknown rule "no-such-rule"`,
		`rules.severity[missing-os-pin]: unknown severity "fatal"`,
		`cluster: pools[0].os: must be linux or windows, got "plan9"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%v", want, err)
		}
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	p := write(t, `apiVersion: winkube.io/v1alpha1
kind: Config
rules:
  disable: [windows-linux-path]
  severity: {missing-os-pin: error}
`)
	c, err := Load(p, known)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Apply(known)
	if len(got) != 2 || got[0].ID != "missing-os-pin" || got[1].ID != "windows-forbidden-field" {
		t.Fatalf("Apply = %v, want missing-os-pin and windows-forbidden-field", got)
	}
	if got[0].Severity != rule.Error {
		t.Errorf("missing-os-pin severity = %v, want error", got[0].Severity)
	}
	if known[0].Severity != rule.Warning {
		t.Error("Apply modified the suite's rule")
	}
	var none *Config
	if len(none.Apply(known)) != len(known) {
		t.Error("a nil config must enable every rule")
	}
}
