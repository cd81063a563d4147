package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/config"
)

// TestKnownRules holds `rules -o json`, `rules explain` and the config
// validator to one set: every rule listed, of every family, can be
// explained and named in .winkube.yaml, and nothing else can.
func TestKnownRules(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, false, "", "rules", "-o", "json")
	if code != 0 {
		t.Fatalf("rules -o json: exit %d: %s", code, errOut)
	}
	var listed []struct{ ID, Family string }
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatal(err)
	}
	families := map[string]int{}
	var ids []string
	for _, r := range listed {
		families[r.Family]++
		ids = append(ids, r.ID)
		code, out, errOut := run(t, false, "", "rules", "explain", "--family", r.Family, "-o", "json", r.ID)
		var got struct{ ID, Family string }
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.ID != r.ID || got.Family != r.Family {
			t.Errorf("rules explain --family %s %s: exit %d, %+v: %s", r.Family, r.ID, code, got, errOut)
		}
	}
	for _, f := range []string{"lint", "node-config", "audit", "doctor"} {
		if families[f] == 0 {
			t.Errorf("rules -o json lists no %s rule", f)
		}
	}
	var known []string
	for _, r := range knownRules() {
		known = append(known, r.ID)
	}
	sort.Strings(ids)
	sort.Strings(known)
	if diff := cmp.Diff(ids, known); diff != "" {
		t.Errorf("rules -o json and the config's known rules differ (-listed +known):\n%s", diff)
	}

	dir := t.TempDir()
	write := func(disable []string) string {
		body := "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n  disable: [" + strings.Join(disable, ", ") + "]\n"
		return writeFile(t, filepath.Join(dir, fmt.Sprintf("winkube-%d.yaml", len(disable))), body)
	}
	if _, err := config.Load(write(ids), knownRules()); err != nil {
		t.Errorf("a config disabling every listed rule is refused: %v", err)
	}
	if code, _, errOut := run(t, false, "", "lint", "--config", write(ids), "-q", examples); code == 2 {
		t.Errorf("lint refuses a config naming every listed rule: %s", errOut)
	}
	if _, err := config.Load(write([]string{"no-such-rule"}), knownRules()); err == nil || !strings.Contains(err.Error(), `unknown rule "no-such-rule"`) {
		t.Errorf("a config naming an unlisted rule: %v, want unknown rule", err)
	}
	if code, _, _ := run(t, false, "", "rules", "explain", "no-such-rule"); code != 2 {
		t.Errorf("rules explain no-such-rule: exit %d, want 2", code)
	}
}

// TestRulesFamily: --family lists one family; a doctor cause that shares
// the ID of a lint rule is explained as the cause only with --family doctor.
func TestRulesFamily(t *testing.T) {
	t.Parallel()
	code, out, errOut := run(t, false, "", "rules", "--family", "node-config")
	if code != 0 || !strings.Contains(out, "kubelet-cgroups-per-qos") || strings.Contains(out, "missing-windows-toleration") {
		t.Errorf("rules --family node-config: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := run(t, false, "", "rules", "--family", "nodes"); code != 2 || !strings.Contains(errOut, `unknown family "nodes"`) {
		t.Errorf("rules --family nodes: exit %d: %s", code, errOut)
	}
	for fam, want := range map[string]string{"": "family: lint", "doctor": "family: doctor"} {
		args := []string{"rules", "explain", "linux-image-on-windows"}
		if fam != "" {
			args = append(args, "--family", fam)
		}
		if code, out, errOut := run(t, false, "", args...); code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, want %q\n%s%s", strings.Join(args, " "), code, want, out, errOut)
		}
	}
}

// TestDoctorCauses: doctor --causes lists, without a cluster, the causes
// that rules --family doctor lists, in the same order.
func TestDoctorCauses(t *testing.T) {
	t.Parallel()
	ids := func(args ...string) []string {
		t.Helper()
		code, out, errOut := run(t, false, "", append(args, "-o", "json")...)
		var list []struct{ ID string }
		if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
			t.Fatalf("%s: exit %d: %s%s", strings.Join(args, " "), code, out, errOut)
		}
		var out2 []string
		for _, c := range list {
			out2 = append(out2, c.ID)
		}
		return out2
	}
	causes := ids("doctor", "--causes", "--kubeconfig", "/nonexistent")
	if len(causes) == 0 || causes[len(causes)-1] != "unknown" {
		t.Errorf("doctor --causes: %v, want every cause, unknown last", causes)
	}
	if diff := cmp.Diff(ids("rules", "--family", "doctor"), causes); diff != "" {
		t.Errorf("doctor --causes and rules --family doctor differ (-rules +doctor):\n%s", diff)
	}
	if code, _, errOut := run(t, false, "", "doctor", "--causes", "web"); code != 2 || !strings.Contains(errOut, "--causes takes no pod") {
		t.Errorf("doctor --causes web: exit %d: %s", code, errOut)
	}
}
