package livenode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/cli"
)

type finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
	Object   struct {
		Kind, Name string
	} `json:"object"`
}

type auditReport struct {
	Findings []finding `json:"findings"`
	Notes    []string  `json:"notes"`
}

func winkube(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func audit(t *testing.T, args ...string) (auditReport, string) {
	t.Helper()
	return auditExit(t, 0, args...)
}

// auditExit runs audit expecting the exit code: 2 when some kind could
// not be listed (the report is still written).
func auditExit(t *testing.T, want int, args ...string) (auditReport, string) {
	t.Helper()
	code, out, stderr := winkube(t, append([]string{"audit", "-o", "json", "--no-simulation", "--fail-on", "none"}, args...)...)
	var rep auditReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != want {
		t.Fatalf("audit: exit %d (want %d), %v\n%s\nstderr: %s", code, want, err, out, stderr)
	}
	return rep, stderr
}

// byNode lists the rules of the findings on each node, for the rules
// wanted.
func byNode(rep auditReport, rules ...string) map[string][]string {
	out := map[string][]string{}
	for _, f := range rep.Findings {
		if f.Object.Kind == "Node" && slices.Contains(rules, f.Rule) {
			out[f.Object.Name] = append(out[f.Object.Name], f.Rule)
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

var liveRules = []string{"kubelet-cgroups-per-qos", "kubelet-enforce-node-allocatable", "kubelet-memory-reserve", "kubelet-runtime-endpoint",
	"kubelet-eviction-hard", "kubelet-resource-managers", "kubelet-windows-invalid-option", "node-locked-feature-gate",
	"windows-node-config-drift", "windows-node-memory-pressure", "windows-node-disk-pressure", "kubelet-unreadable"}

// wantDirect is what the audit reports of the scenario's kubelets when
// it may read them: nodeconfig's rules on win-3's live configuration,
// its drift from pool win, win-4's memory and both its filesystems, the
// hung and malformed kubelets of win-5 and win-6, and win-7's endless log
// of each of the 7 services asked for.
var wantDirect = map[string][]string{
	"win-3": {"kubelet-cgroups-per-qos", "kubelet-enforce-node-allocatable", "kubelet-memory-reserve", "kubelet-runtime-endpoint", "windows-node-config-drift"},
	"win-4": {"windows-node-disk-pressure", "windows-node-disk-pressure", "windows-node-memory-pressure"},
	"win-5": {"kubelet-unreadable", "kubelet-unreadable"},
	"win-6": {"kubelet-unreadable", "kubelet-unreadable"},
	"win-7": slices.Repeat([]string{"kubelet-unreadable"}, 7),
}

// nodeLogRules are the audit's rules over the node logs.
var nodeLogRules = []string{"node-log-runtime-endpoint-unreachable", "node-log-sandbox-network-setup-failing", "node-log-hns-load-balancer-failing",
	"node-log-hns-network-missing", "node-log-flannel-waiting-for-network", "node-log-source-vip-problem"}

// wantLogs is what the audit finds in the scenario's node logs: doctor's
// node causes, from the same lines.
var wantLogs = map[string][]string{
	"win-1": {"node-log-hns-network-missing"},
	"win-2": {"node-log-hns-network-missing", "node-log-source-vip-problem"},
	"win-4": {"node-log-flannel-waiting-for-network", "node-log-hns-load-balancer-failing", "node-log-hns-network-missing", "node-log-runtime-endpoint-unreachable", "node-log-sandbox-network-setup-failing"},
}

// TestAuditDirectUnderShippedRole: the CronJob's ServiceAccount, with
// only deploy/audit-rbac.yaml, reads every kubelet directly; each
// kubelet authorizes it per subresource with a SubjectAccessReview.
func TestAuditDirectUnderShippedRole(t *testing.T) {
	kc := kubeconfigFor(t, t.TempDir(), "winkube-audit")
	start := time.Now()
	rep, stderr := audit(t, "--kubeconfig", kc, "--node-reads=direct", "--kubelet-ca", caFile)
	t.Logf("audit with a hung kubelet took %s", time.Since(start).Round(time.Millisecond))
	if diff := cmp.Diff(wantDirect, byNode(rep, liveRules...)); diff != "" {
		t.Errorf("findings on the nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLogs, byNode(rep, nodeLogRules...)); diff != "" {
		t.Errorf("node-log findings (-want +got):\n%s", diff)
	}
	stamp := logTime.Format(time.RFC3339)
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, "node-log-") && !strings.Contains(f.Message, ", "+stamp+"): ") {
			t.Errorf("%s on %s does not quote its line with the line's time %s: %s", f.Rule, f.Object.Name, stamp, f.Message)
		}
	}
	for _, f := range rep.Findings {
		if f.Rule == "node-log-hns-load-balancer-failing" && !strings.Contains(f.Message, `"Nodeport policy creation failed" err="hnsCall failed in Win32: The specified port already exists. (0x803b0013)"`) {
			t.Errorf("hns-load-balancer finding does not quote the newest line whole: %s", f.Message)
		}
	}
	for _, f := range rep.Findings {
		switch {
		case f.Rule == "kubelet-runtime-endpoint" && !strings.Contains(f.Message, `containerRuntimeEndpoint "unix:///run/containerd/containerd.sock" is a Unix socket`):
			t.Errorf("kubelet-runtime-endpoint message is not nodeconfig validate's: %s", f.Message)
		case f.Rule == "windows-node-config-drift" && !strings.Contains(f.Message, "cgroupsPerQOS is true where 2 of 3 have false"):
			t.Errorf("drift does not name the differing field: %s", f.Message)
		case f.Rule == "kubelet-unreadable" && f.Object.Name == "win-5" && !strings.Contains(f.Message, "/configz of node win-5's kubelet (direct): no answer within 10s") &&
			!strings.Contains(f.Message, "8 more endpoint(s) not asked: the kubelet did not answer in time"):
			t.Errorf("hung kubelet: %s", f.Message)
		case f.Rule == "kubelet-unreadable" && f.Object.Name == "win-6" && !strings.Contains(f.Message, "malformed"):
			t.Errorf("malformed answer: %s", f.Message)
		}
	}
	if !strings.Contains(stderr, "read the kubelets of 7 Windows node(s) directly") || !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "directly on their ports") }) {
		t.Errorf("the audit does not say which path it used: stderr %q, notes %q", stderr, rep.Notes)
	}
}

// TestAuditDirectWithoutPermission: a subject that may list nodes but
// not read the kubelets gets, from each kubelet's SubjectAccessReview, a
// finding naming the permission; the rest of the audit runs.
func TestAuditDirectWithoutPermission(t *testing.T) {
	kc := kubeconfigFor(t, t.TempDir(), "nodes-only")
	// The subject may not list pods or workloads either: the audit says so
	// and exits 2, after reporting what it could read.
	rep, _ := auditExit(t, 2, "--kubeconfig", kc, "--node-reads=direct", "--kubelet-ca", caFile)
	hints := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Rule == "kubelet-unreadable" && f.Object.Name == "win-1" {
			hints[f.Hint] = true
		}
	}
	want := map[string]bool{
		"grant get nodes/configz to the identity the audit runs as (deploy/audit-rbac.yaml)": true,
		"grant get nodes/stats to the identity the audit runs as (deploy/audit-rbac.yaml)":   true,
		"grant get nodes/log to the identity the audit runs as (deploy/audit-rbac.yaml)":     true,
	}
	if diff := cmp.Diff(want, hints); diff != "" {
		t.Errorf("hints on win-1 (-want +got):\n%s", diff)
	}
}

// TestAuditThroughNodeProxy: through the real API server's node proxy,
// the opt-in role reads what the direct path reads; the shipped role
// alone is refused by the API server, and the finding names nodes/proxy.
func TestAuditThroughNodeProxy(t *testing.T) {
	dir := t.TempDir()
	proxyUser := kubeconfigFor(t, dir, "proxy-user")
	rep, stderr := audit(t, "--kubeconfig", proxyUser, "--node-reads=proxy")
	got := byNode(rep, liveRules...)
	if diff := cmp.Diff(wantDirect, got); diff != "" {
		t.Errorf("findings through the proxy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLogs, byNode(rep, nodeLogRules...)); diff != "" {
		t.Errorf("node-log findings through the proxy (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, "through the API server's node proxy") {
		t.Errorf("stderr does not name the proxy path: %q", stderr)
	}

	shipped := kubeconfigFor(t, dir, "winkube-audit")
	rep, _ = audit(t, "--kubeconfig", shipped, "--node-reads=proxy")
	denied := 0
	for _, f := range rep.Findings {
		if f.Rule == "kubelet-unreadable" && strings.Contains(f.Hint, "grant get nodes/proxy") {
			denied++
		}
	}
	// The log query refused for the first service is not asked for the
	// others: configz, stats and logs, once each.
	if denied != 3*7 {
		t.Errorf("%d kubelet-unreadable findings naming nodes/proxy under the shipped role, want 21 (configz, stats and logs of 7 nodes)", denied)
	}
}

type doctorReport struct {
	Summary struct {
		Unhealthy   int    `json:"unhealthy"`
		Nodes       int    `json:"nodesWithCauses"`
		KubeletPath string `json:"kubeletPath"`
	} `json:"summary"`
	Diagnoses []struct {
		Node     string `json:"node"`
		Cause    string `json:"cause"`
		Evidence []struct {
			Source, Reason, Message string
			Time                    *time.Time
		} `json:"evidence"`
	} `json:"diagnoses"`
}

// TestDoctorNodeCausesFromLogs: no pod exists, let alone an unhealthy
// one; doctor names each node cause from the kubelets' log query alone,
// quoting the lines with their timestamps, under the shipped role
// (nodes/log, nodes/stats).
func TestDoctorNodeCausesFromLogs(t *testing.T) {
	kc := kubeconfigFor(t, t.TempDir(), "winkube-audit")
	code, out, stderr := winkube(t, "doctor", "-A", "-o", "json", "--no-simulation", "--kubeconfig", kc, "--node-reads=direct", "--kubelet-ca", caFile)
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor: exit %d, %v\n%s\nstderr: %s", code, err, out, stderr)
	}
	if code != 1 || rep.Summary.Unhealthy != 0 || rep.Summary.Nodes != 3 || rep.Summary.KubeletPath != "direct" {
		t.Errorf("exit %d, summary %+v; want exit 1, no unhealthy pod, 3 nodes with causes, path direct", code, rep.Summary)
	}
	got := map[string][]string{}
	for _, d := range rep.Diagnoses {
		got[d.Node] = append(got[d.Node], d.Cause)
		for _, e := range d.Evidence {
			if e.Source == "log" && (e.Time == nil || !e.Time.Equal(logTime)) {
				t.Errorf("%s on %s: log evidence without its line's time: %+v", d.Cause, d.Node, e)
			}
		}
	}
	want := map[string][]string{
		"win-1": {"hns-network-missing"},
		"win-2": {"hns-network-missing", "source-vip-problem"},
		"win-4": {"runtime-endpoint-unreachable", "sandbox-network-setup-failing", "hns-load-balancer-failing", "hns-network-missing", "flannel-waiting-for-network"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("node causes (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, "cannot read /stats/summary of node win-5's kubelet: no answer within 10s") {
		t.Errorf("the hung kubelet is not reported on stderr: %q", stderr)
	}
	if !strings.Contains(stderr, "of node win-7's kubelet: the log answer is larger than 16777216 bytes") {
		t.Errorf("the endless log is not reported on stderr: %q", stderr)
	}
}

// TestAuditConfigAppliesToLiveChecks: a .winkube.yaml that turns a rule
// off or re-grades it does so for the checks of the live kubelets too,
// node-config rules on /configz and node-log rules alike, as for
// nodeconfig validate and the node rules.
func TestAuditConfigAppliesToLiveChecks(t *testing.T) {
	dir := t.TempDir()
	kc := kubeconfigFor(t, dir, "winkube-audit")
	cfg := filepath.Join(dir, ".winkube.yaml")
	body := "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n" +
		"  disable: [kubelet-cgroups-per-qos, node-log-source-vip-problem]\n" +
		"  severity: {kubelet-runtime-endpoint: info, node-log-hns-network-missing: error}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"--kubeconfig", kc, "--node-reads=direct", "--kubelet-ca", caFile}
	plain, _ := audit(t, args...)
	configured, _ := audit(t, append(args, "--config", cfg)...)
	// severities of the findings of a rule on a node
	sev := func(rep auditReport, rule, node string) []string {
		var out []string
		for _, f := range rep.Findings {
			if f.Rule == rule && f.Object.Name == node {
				out = append(out, f.Severity)
			}
		}
		return out
	}
	for _, tt := range []struct {
		rule, node  string
		plain, with []string
	}{
		{"kubelet-cgroups-per-qos", "win-3", []string{"warning"}, nil},
		{"kubelet-runtime-endpoint", "win-3", []string{"error"}, []string{"info"}},
		{"node-log-source-vip-problem", "win-2", []string{"warning"}, nil},
		{"node-log-hns-network-missing", "win-4", []string{"warning"}, []string{"error"}},
		// untouched by the config
		{"kubelet-memory-reserve", "win-3", sev(plain, "kubelet-memory-reserve", "win-3"), sev(plain, "kubelet-memory-reserve", "win-3")},
	} {
		if diff := cmp.Diff(tt.plain, sev(plain, tt.rule, tt.node)); diff != "" {
			t.Errorf("%s on %s without the config (-want +got):\n%s", tt.rule, tt.node, diff)
		}
		if diff := cmp.Diff(tt.with, sev(configured, tt.rule, tt.node)); diff != "" {
			t.Errorf("%s on %s with the config (-want +got):\n%s", tt.rule, tt.node, diff)
		}
	}
	if len(sev(plain, "kubelet-memory-reserve", "win-3")) == 0 {
		t.Error("kubelet-memory-reserve does not fire on win-3: the untouched rule checks nothing")
	}
}
