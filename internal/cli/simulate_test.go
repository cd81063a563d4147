package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const cleanApp = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]
`

func runSimulate(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return run(t, false, stdin, append([]string{"simulate"}, args...)...)
}

func TestSimulateExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clusterFile := writeFile(t, filepath.Join(dir, "cluster.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: Cluster\npools:\n- {name: lin, count: 1, os: linux, cpu: \"1\", memory: 4Gi}\n")
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		out   string // substring of stdout
		err   string // substring of stderr
	}{
		{"every pod runs", cleanApp, []string{"-"}, ExitClean, "2/2 scheduled", ""},
		{"a pod stays pending", cleanApp, []string{"--replicas", "Deployment/web=30", "-"}, ExitFindings, "0/5 nodes are available", ""},
		{"the examples carry mistakes", "", []string{"../../examples"}, ExitFindings, "is invalid", ""},
		{"a cluster file", cleanApp, []string{"--cluster", clusterFile, "-"}, ExitFindings, "0/1 nodes are available: 1 Insufficient cpu", ""},
		{"the output format does not change the status", cleanApp, []string{"-o", "json", "--replicas", "Deployment/web=30", "-"}, ExitFindings, `"kind": "SimulationReport"`, ""},
		{"--max", cleanApp, []string{"--max", "Deployment/web", "-"}, ExitClean, "more replicas would fit", ""},
		{"no path", "", nil, ExitError, "", "needs at least one path"},
		{"bad format", cleanApp, []string{"-o", "yaml", "-"}, ExitError, "", "want text, json or html"},
		{"bad --replicas", cleanApp, []string{"--replicas", "web=2", "-"}, ExitError, "", "Kind/name=N"},
		{"unknown workload", cleanApp, []string{"--max", "Deployment/nope", "-"}, ExitError, "", "no such workload"},
		{"bad version", cleanApp, []string{"--kubernetes-version", "1.99", "-"}, ExitError, "", "outside the range"},
		{"missing cluster file", cleanApp, []string{"--cluster", filepath.Join(dir, "nope.yaml"), "-"}, ExitError, "", "nope.yaml"},
		{"unreadable document: reported, left out, exit 1", "kind: [", []string{"-"}, ExitFindings, "Simulated 0 pods", "(left out of the simulation)"},
		{"duplicate object: reported, left out, exit 1", cleanApp + "---\n" + cleanApp, []string{"-"}, ExitFindings, "", "is defined twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runSimulate(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out, tt.out) {
				t.Errorf("stdout lacks %q:\n%s", tt.out, out)
			}
			if !strings.Contains(errOut, tt.err) {
				t.Errorf("stderr lacks %q:\n%s", tt.err, errOut)
			}
		})
	}
}

func TestSimulateJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := runSimulate(t, cleanApp, "-o", "json", "-")
	if code != ExitClean {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		APIVersion string `json:"apiVersion"`
		Pods       []struct {
			Workload, Pod, Node string
		} `json:"pods"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if doc.APIVersion != "winkube.io/v1alpha1" || len(doc.Pods) != 2 || doc.Pods[0].Node == "" {
		t.Errorf("report: %+v", doc)
	}
}

func TestLintTakesClusterFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A Linux-only cluster: the reference cluster's Windows findings vanish.
	linuxOnly := writeFile(t, filepath.Join(dir, "linux.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: Cluster\npools:\n- {name: lin, count: 3, os: linux, cpu: \"4\", memory: 16Gi}\n")
	unpinned := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: nginx}]\n"
	lint := func(args ...string) string {
		_, out, errOut := run(t, false, unpinned, append([]string{"lint", "--fail-on", "none"}, args...)...)
		return out + errOut
	}
	if got := lint("-"); !strings.Contains(got, "missing-os-pin") {
		t.Fatalf("on the reference cluster an unpinned workload is reported:\n%s", got)
	}
	if got := lint("--cluster", linuxOnly, "-"); strings.Contains(got, "missing-os-pin") {
		t.Errorf("on a Linux-only cluster it is not:\n%s", got)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: Cluster\npols: []\n")
	code, _, errOut := run(t, false, unpinned, "lint", "--cluster", bad, "-")
	if code != ExitError || !strings.Contains(errOut, `bad.yaml:3:1: unknown field "pols" (did you mean "pools"?)`) {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}
