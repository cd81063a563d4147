package audit

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
)

type auditJSON struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Findings   []struct {
		Rule      string `json:"rule"`
		Message   string `json:"message"`
		FieldPath string `json:"fieldPath"`
		File      string `json:"file"`
		Object    struct {
			Kind, Namespace, Name string
		} `json:"object"`
	} `json:"findings"`
	Areas []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"areas"`
	Simulation *struct {
		Headroom []struct {
			Workload string `json:"workload"`
			MoreFit  int    `json:"moreFit"`
		} `json:"headroom"`
	} `json:"simulation"`
}

func runAudit(t *testing.T, args ...string) (int, auditJSON, string) {
	t.Helper()
	code, out, stderr := winkube(t, append([]string{"audit", "-o", "json"}, args...)...)
	var rep auditJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("audit output is not JSON (exit %d): %v\n%s\nstderr: %s", code, err, out, stderr)
	}
	return code, rep, out
}

// TestAuditNodeRules: every node rule fires on the node built to break
// it, and on no healthy node.
func TestAuditNodeRules(t *testing.T) {
	code, rep, out := runAudit(t, "--kubeconfig", cp.KubeconfigPath)
	if code != 1 {
		t.Errorf("exit %d, want 1 (errors found)", code)
	}
	if rep.APIVersion != "winkube.io/v1alpha1" || rep.Kind != "AuditReport" {
		t.Errorf("apiVersion/kind %s/%s", rep.APIVersion, rep.Kind)
	}
	got := map[string][]string{}
	for _, f := range rep.Findings {
		if f.File != "" {
			t.Errorf("finding %s on %s/%s has a file %q; live findings have logical locations", f.Rule, f.Object.Kind, f.Object.Name, f.File)
		}
		got[f.Rule] = append(got[f.Rule], f.Object.Kind+"/"+f.Object.Name)
	}
	want := map[string][]string{
		"windows-node-untainted":            {"Node/win-untainted"},
		"windows-node-build-label-missing":  {"Node/win-nolabel"},
		"windows-node-build-label-mismatch": {"Node/win-mislabel"},
		"windows-node-unsupported-build":    {"Node/win-2019"},
		"windows-node-low-reserve":          {"Node/win-lowreserve"},
		"windows-node-containerd-old":       {"Node/win-oldctr"},
		"kubelet-version-skew":              {"Node/win-skew"},
		"hybrid-too-few-nodes":              {"Cluster/cluster"},
		"linux-pod-on-windows-node":         {"Pod/stray-linux"},
		"windows-pod-on-linux-node":         {"Pod/windows-image"},
		"windows-node-not-ready":            {"Node/win-notready"},
	}
	for id, objs := range want {
		sort.Strings(got[id])
		if strings.Join(got[id], ",") != strings.Join(objs, ",") {
			t.Errorf("%s fired on %v, want %v", id, got[id], objs)
		}
	}
	if n := len(got["permission-denied"]); n != 0 {
		t.Errorf("%d permission-denied findings as admin", n)
	}
	checkGolden(t, "audit.json", out)
}

// TestAuditOwnersAndRuntimeClasses: lint findings about the pod of a
// ReplicaSet of a Deployment are reported once, at the Deployment; a
// workload whose RuntimeClass (read from the cluster) pins and tolerates
// is clean.
func TestAuditOwnersAndRuntimeClasses(t *testing.T) {
	placement := map[string]bool{}
	for _, r := range rules.Suite() {
		placement[r.ID] = r.Category == rule.Placement
	}
	_, rep, _ := runAudit(t, "--kubeconfig", cp.KubeconfigPath)
	var web []string
	for _, f := range rep.Findings {
		ref := f.Object.Kind + "/" + f.Object.Name
		switch {
		case strings.HasPrefix(f.Object.Name, "web"):
			web = append(web, f.Rule+"@"+ref+":"+f.FieldPath)
		case f.Object.Kind == "Deployment" && f.Object.Name == "iis" && placement[f.Rule]:
			t.Errorf("iis (RuntimeClass windows-2022 from the cluster) has placement finding %s: %s", f.Rule, f.Message)
		}
	}
	found := false
	for _, w := range web {
		if !strings.Contains(w, "@Deployment/web:") && !strings.Contains(w, "@Deployment/web") {
			t.Errorf("finding about web reported at %s, want the Deployment", w)
		}
		found = found || strings.HasPrefix(w, "missing-windows-toleration@Deployment/web:spec.template.spec")
	}
	if !found {
		t.Errorf("no missing-windows-toleration finding at Deployment/web with a field path; got %v", web)
	}
}

// TestAuditFormats: text names objects and field paths, SARIF has
// logical locations and no artifact, -n limits the namespace.
func TestAuditFormats(t *testing.T) {
	_, text, _ := winkube(t, "audit", "--kubeconfig", cp.KubeconfigPath, "--color", "never")
	for _, want := range []string{"Node/win-2019:status.nodeInfo.kernelVersion: error:", "readiness:", "[windows-node-not-ready]"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	_, sarif, _ := winkube(t, "audit", "--kubeconfig", cp.KubeconfigPath, "-o", "sarif")
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Physical *json.RawMessage `json:"physicalLocation"`
					Logical  []struct {
						FullyQualifiedName string `json:"fullyQualifiedName"`
						Kind               string `json:"kind"`
					} `json:"logicalLocations"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v", err)
	}
	for _, r := range log.Runs[0].Results {
		if len(r.Locations) != 1 || r.Locations[0].Physical != nil || len(r.Locations[0].Logical) == 0 {
			t.Errorf("result %s: locations %+v, want one logical location only", r.RuleID, r.Locations)
		}
	}
	_, rep, _ := runAudit(t, "--kubeconfig", cp.KubeconfigPath, "-n", "default")
	for _, f := range rep.Findings {
		if f.Object.Namespace == ns {
			t.Errorf("-n default reported %s on %s/%s", f.Rule, f.Object.Namespace, f.Object.Name)
		}
	}
}
