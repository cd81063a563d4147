package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runPolicy(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return run(t, false, "", append([]string{"policy", "export", "--cluster", "reference"}, args...)...)
}

func TestPolicyExport(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "kyverno.yaml")
	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string // in stdout
		notWant  string   // not in stdout
		wantErr  string
		wantFile string
	}{
		{name: "default", code: 0, want: []string{"kind: ValidatingAdmissionPolicy\n", "- Deny\n", "namespace: kube-system\n"}, notWant: "kind: MutatingAdmissionPolicy\n"},
		{name: "fixes", args: []string{"--fixes"}, code: 0, want: []string{"kind: ValidatingAdmissionPolicy\n", "kind: MutatingAdmissionPolicy\n"}},
		{name: "bad name", args: []string{"--name", "Winkube_Policies"}, code: ExitError, wantErr: `name "Winkube_Policies": a lowercase RFC 1123 subdomain`},
		{name: "bad params namespace", args: []string{"--params-namespace", "kube.system"}, code: ExitError, wantErr: `params namespace "kube.system": must not contain dots`},
		{name: "check without a params namespace", args: []string{"--check-cluster", "--params-namespace", ""}, code: ExitError, wantErr: "--check-cluster reads the params ConfigMap of --params-namespace"},
		{name: "check with a bad kubeconfig", args: []string{"--check-cluster", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, code: ExitError, wantErr: "loading the cluster config"},
		{name: "bad excluded namespace", args: []string{"--exclude-namespaces", "kube-system,Team A"}, code: ExitError, wantErr: `excluded namespace "Team A"`},
		{name: "warn mode, two rules, no fixes", args: []string{"--mode", "warn", "--rules", "missing-os-pin,windows-host-network", "--no-fixes"}, code: 0,
			want: []string{"# 2 rules exported:", "- Warn\n", "name: winkube-error\n"}},
		{name: "kyverno to a file", args: []string{"--output-file", "kyverno=" + file, "-q"}, code: 0, wantFile: "kind: ClusterPolicy\n"},
		{name: "unknown format", args: []string{"-o", "gatekeeper"}, code: ExitError, wantErr: `--output "gatekeeper"`},
		{name: "no profile", args: []string{"--cluster", ""}, code: ExitError, wantErr: "must not be assumed: pass --cluster"},
		{name: "unknown rule", args: []string{"--rules", "no-such-rule"}, code: ExitError, wantErr: `"no-such-rule" is not an enabled rule`},
		{name: "bad mode", args: []string{"--mode", "deny"}, code: ExitError, wantErr: "--mode"},
		{name: "bad selector", args: []string{"--namespace-selector", "a=b=c"}, code: ExitError, wantErr: "--namespace-selector"},
		{name: "arguments", args: []string{"x.yaml"}, code: ExitError, wantErr: "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runPolicy(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q", w)
				}
			}
			if tc.notWant != "" && strings.Contains(out, tc.notWant) {
				t.Errorf("stdout has %q", tc.notWant)
			}
			if tc.wantErr != "" && !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut, tc.wantErr)
			}
			if tc.wantFile != "" {
				data, err := os.ReadFile(file)
				if err != nil || !strings.Contains(string(data), tc.wantFile) {
					t.Errorf("%s: %v, lacks %q", file, err, tc.wantFile)
				}
			}
		})
	}
}
