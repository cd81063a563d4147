package policy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// untoleratedWindowsDeployment is issue 19's reproduction: pinned to
// Windows by its nodeSelector, no toleration for the os=windows:NoSchedule
// taint of examples/cluster.yaml, no spec.os.
const untoleratedWindowsDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      containers:
      - name: web
        image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
        resources: {requests: {cpu: 500m, memory: 512Mi}, limits: {cpu: "1", memory: 1Gi}}
`

// TestExportAsAUserRunsIt is issue 19's reproduction, run as the issue
// runs it: `winkube policy export --cluster examples/cluster.yaml |
// kubectl apply -f -` with every default, then a server-side dry-run
// create of a Windows Deployment without its toleration. It must be
// denied for lint's error, in lint's words, and warned about lint's
// warning. (The export used to include the mutating policy by default,
// which added the toleration and spec.os before the validating policies
// ran: the Deployment was admitted with no warning at all.)
func TestExportAsAUserRunsIt(t *testing.T) {
	clusterFile := filepath.Join(root, "examples/cluster.yaml")
	export := exportAsAUser(t, clusterFile)
	s := startServer(t)
	s.applyAll(t, export)

	c, err := cluster.Load(clusterFile)
	if err != nil {
		t.Fatal(err)
	}
	m := winsupport.Default()
	obj := mustObject(t, untoleratedWindowsDeployment)
	res := engine.Check([]*manifest.Object{obj}, engine.Options{Rules: rules.Suite(), Cluster: c, Model: m})
	lint := map[rule.Severity]map[string]string{rule.Error: {}, rule.Warning: {}}
	for _, f := range res.Findings {
		if lint[f.Severity] != nil {
			lint[f.Severity][f.Rule] = f.Message
		}
	}
	// The lint answer, so that the comparison below compares
	// something: error missing-windows-toleration, warning missing-spec-os.
	if lint[rule.Error]["missing-windows-toleration"] == "" || lint[rule.Warning]["missing-spec-os"] == "" {
		t.Fatalf("lint no longer reports the issue's findings: %+v", res.Findings)
	}

	// The canary (a Linux image pinned to Windows, no resources) is denied
	// once the error policy is active, whatever they would fix, and warned
	// about (missing-spec-os, windows-missing-resources) once the warning
	// policy is: the API server compiles each policy on its own, so one
	// can be active before the other.
	s.waitActive(t, "default", mustObject(t, windowsCanary), func(o outcome) bool {
		w, d, _ := policyRules(o, "winkube")
		return d != "" && w["missing-spec-os"] && w["windows-missing-resources"]
	})
	o := s.dryRun(t.Context(), "default", obj)
	warned, denied, problems := policyRules(o, "winkube")
	if len(problems) > 0 {
		t.Fatalf("policy problems: %q", problems)
	}
	if _, ok := lint[rule.Error][denied]; !ok {
		t.Fatalf("the Deployment was not denied for one of lint's errors %v: denied %q, error %v, warnings %q", lint[rule.Error], denied, o.err, o.warnings)
	}
	if want := "missing-windows-toleration: " + lint[rule.Error]["missing-windows-toleration"]; !strings.Contains(o.err.Error(), want) {
		t.Errorf("the denial %q lacks lint's words %q", o.err, want)
	}
	var wantWarned []string
	for id := range lint[rule.Warning] {
		wantWarned = append(wantWarned, id)
	}
	if diff := cmp.Diff(sortedStrings(wantWarned), sortedKeys(warned)); diff != "" {
		t.Errorf("warned rules (-lint +policies):\n%s\nwarnings: %q", diff, o.warnings)
	}
	msgs := policyMessages(o, "winkube")
	if got, want := msgs["missing-spec-os"], []string{lint[rule.Warning]["missing-spec-os"]}; !cmp.Equal(got, want) {
		t.Errorf("missing-spec-os warning %q, lint says %q", got, want)
	}
	// Nothing was changed on the way: no mutating policy by default.
	maps, err := s.kube.AdmissionregistrationV1().MutatingAdmissionPolicies().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(maps.Items) != 0 {
		t.Errorf("the default export installed %d MutatingAdmissionPolicies", len(maps.Items))
	}
}

func sortedStrings(ss []string) []string {
	set := map[string]bool{}
	for _, s := range ss {
		set[s] = true
	}
	return sortedKeys(set)
}
