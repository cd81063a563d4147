package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/manifest"
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
	// Every problem at once, each at its file:line:col, in file order.
	want := []string{
		p + `:1:1: apiVersion: must be winkube.io/v1alpha1, got "winkube.io/v1beta9"`,
		p + `:2:1: kind: must be Config, got "Settings"`,
		p + `:3:1: kubernetesVersion: invalid Kubernetes version "2.0": want 1.MINOR, e.g. 1.36`,
		p + `:5:13: rules.disable[0]: unknown rule "no-such-rule" (winkube rules lists them)`,
		p + `:6:14: rules.severity[missing-os-pin]: unknown severity "fatal": want error, warning or info`,
		p + `:9:5: cluster.pools[0].cpu: required: the CPUs of one node, e.g. "4"`,
		p + `:9:5: cluster.pools[0].memory: required: the memory of one node, e.g. 16Gi`,
		p + `:9:25: cluster.pools[0].os: must be linux or windows, got "plan9"`,
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	for _, e := range manifest.Errors(p, err) {
		if !errors.Is(e, manifest.ErrInvalid) {
			t.Errorf("%v: class %v, want ErrInvalid", e, e.Class)
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

// TestDoctorCauseSeverity: a doctor cause may be disabled but not
// re-graded; an ID a lint rule shares with a cause may be re-graded.
func TestDoctorCauseSeverity(t *testing.T) {
	t.Parallel()
	withCauses := append([]*rule.Rule{
		{ID: "oom-killed", Severity: rule.Error, Family: rule.FamilyDoctor},
		{ID: "missing-os-pin", Severity: rule.Error, Family: rule.FamilyDoctor},
	}, known...)
	p := write(t, "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n  disable: [oom-killed]\n  severity: {oom-killed: info, missing-os-pin: error}\n")
	_, err := Load(p, withCauses)
	if err == nil || !strings.Contains(err.Error(), `:5:14: rules.severity[oom-killed]: "oom-killed" is a doctor cause, which has no severity: disable it instead`) {
		t.Fatalf("Load: %v, want the doctor cause's severity refused", err)
	}
	if strings.Contains(err.Error(), "missing-os-pin") || strings.Contains(err.Error(), "disable[0]") {
		t.Errorf("Load refuses more than the cause's severity: %v", err)
	}
}
