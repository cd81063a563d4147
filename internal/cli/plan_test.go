package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func runPlan(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return run(t, false, "", append([]string{"plan"}, args...)...)
}

func TestPlanExitCodes(t *testing.T) {
	t.Parallel()
	const (
		cur  = "../plan/testdata/cluster.yaml"
		tgt  = "../plan/testdata/target.yaml"
		work = "../plan/testdata/workloads.yaml"
	)
	tests := []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"a build move breaks pinned workloads", []string{"--cluster", cur, "--set-pool", "win:build=10.0.26100", work}, ExitFindings, "BREAKS Deployment/shop/iis", ""},
		{"--fail-on none", []string{"--cluster", cur, "--set-pool", "win:build=10.0.26100", "--fail-on", "none", work}, ExitClean, "Drain wave 1", ""},
		{"--to gives the same", []string{"--cluster", cur, "--to", tgt, "-o", "json", work}, ExitFindings, `"kind": "PlanReport"`, ""},
		{"more Linux nodes break nothing", []string{"--cluster", cur, "--set-pool", "linux:count=4", work}, ExitClean, "no workload loses ready replicas", ""},
		{"no change", []string{"--cluster", cur, work}, ExitError, "", "plan needs a change"},
		{"bad --set-pool", []string{"--cluster", cur, "--set-pool", "win", work}, ExitError, "", `--set-pool "win"`},
		{"bad --taint", []string{"--cluster", cur, "--taint", "win:os:Maybe", work}, ExitError, "", `--taint "win:os:Maybe"`},
		{"unknown pool", []string{"--cluster", cur, "--remove-pool", "nope", work}, ExitError, "", `--remove-pool: no pool "nope"`},
		{"bad --kubernetes-version", []string{"--cluster", cur, "--kubernetes-version", "2.0", work}, ExitError, "", "--kubernetes-version"},
		{"bad --containerd", []string{"--cluster", cur, "--containerd", "9", work}, ExitError, "", "--containerd"},
		{"--to with pool flags", []string{"--cluster", cur, "--to", tgt, "--taint", "win:a=b:NoSchedule", work}, ExitError, "", "not both"},
		{"bad --node-config", []string{"--cluster", cur, "--containerd", "2.1", "--node-config", "nope/", work}, ExitError, "", "--node-config nope/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runPlan(t, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) {
				t.Errorf("exit %d, want %d\nstdout (want %q):\n%s\nstderr (want %q):\n%s", code, tc.code, tc.out, out, tc.err, errOut)
			}
		})
	}
}

// TestPlanNodeConfig: the current node's containerd config, schema
// version 2, is checked against the target's containerd 2.1, and the
// changed Windows pool gets its generated configuration.
func TestPlanNodeConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"mcr.microsoft.com/oss/kubernetes/pause:3.9\"\n"
	writeFile(t, filepath.Join(dir, "Program Files", "containerd", "config.toml"), conf)
	code, out, errOut := runPlan(t, "--cluster", "../plan/testdata/cluster.yaml", "--containerd", "2.1", "--current-containerd", "1.7.27", "--node-config", dir, "../plan/testdata/workloads.yaml")
	for _, want := range []string{"config version 2 is not the schema of containerd 2.x, which reads version 3 [containerd-config-schema]",
		`C:\Program Files\containerd\config.toml`, "containerd 1.7.27 -> 2.1 on the Windows nodes"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != ExitFindings {
		t.Errorf("exit %d, want 1 for an error-severity node finding\n%s", code, errOut)
	}
}

// TestPlanJSON checks the PlanReport's shape: changes, workloads with
// before, after and causes, and steps.
func TestPlanJSON(t *testing.T) {
	t.Parallel()
	_, out, _ := runPlan(t, "--cluster", "../plan/testdata/cluster.yaml", "--set-pool", "win:build=10.0.26100", "-o", "json", "../plan/testdata/workloads.yaml")
	var rep struct {
		Kind    string `json:"kind"`
		Changes []struct {
			Kind, Target, Detail string
		} `json:"changes"`
		Workloads []struct {
			Workload, Verdict string
			Before, After     struct{ Status string }
			Causes            []struct{ Kind, ID string }
		} `json:"workloads"`
		Steps []struct{ Kind string } `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Kind != "PlanReport" || len(rep.Changes) != 1 || rep.Changes[0].Detail != "windowsBuild 10.0.20348 -> 10.0.26100" {
		t.Errorf("kind %q, changes %+v", rep.Kind, rep.Changes)
	}
	if len(rep.Workloads) != 4 || len(rep.Steps) == 0 {
		t.Fatalf("%d workloads, %d steps", len(rep.Workloads), len(rep.Steps))
	}
	iis := rep.Workloads[1]
	if iis.Workload != "Deployment/shop/iis" || iis.Before.Status != "scheduled" || iis.After.Status != "pending" || len(iis.Causes) == 0 || iis.Causes[0].ID != "FailedScheduling" {
		t.Errorf("iis: %+v", iis)
	}
}
