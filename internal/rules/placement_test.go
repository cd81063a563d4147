package rules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
)

const (
	fixWindowsPod = `apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
  containers:
  - {name: app, image: IMAGE}
`
	fixUnpinnedPod = `apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
  containers:
  - {name: app, image: IMAGE}
`
	fixLinuxDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - {name: agent, image: IMAGE}
`
)

// TestPlacementAndImageFixes checks the edits the rules attach, which fixtures cannot see.
func TestPlacementAndImageFixes(t *testing.T) {
	t.Parallel()
	multiBuild := testClusters["multi-build"]
	tests := []struct {
		name    string
		rule    *rule.Rule
		cluster func() *cluster.Cluster
		yaml    string
		image   string
		want    *rule.Fix // nil: a finding without a fix
	}{
		{"build pin from the image tag", MissingWindowsBuildPin, multiBuild, fixWindowsPod, "mcr.microsoft.com/windows/servercore:ltsc2019",
			&rule.Fix{Title: "pin the workload to Windows build 10.0.17763", Safe: true, Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.nodeSelector[node.kubernetes.io/windows-build]", Value: "10.0.17763"}}}},
		{"no build pin without a build in the tag", MissingWindowsBuildPin, multiBuild, fixWindowsPod, "myregistry/app:1.0", nil},
		{"no build pin to a build no pool runs", MissingWindowsBuildPin, multiBuild, fixWindowsPod, "mcr.microsoft.com/windows/servercore:ltsc2025", nil},
		{"spec.os.name", MissingSpecOS, cluster.Reference, fixWindowsPod, "myregistry/app:1.0",
			&rule.Fix{Title: "set spec.os.name to windows", Safe: true, Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.os.name", Value: "windows"}}}},
		{"spec.os.name unsafe beside Linux-only fields", MissingSpecOS, cluster.Reference,
			strings.Replace(fixWindowsPod, "  containers:", "  securityContext: {runAsUser: 1000}\n  containers:", 1), "myregistry/app:1.0",
			&rule.Fix{Title: "set spec.os.name to windows", Safe: false, Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.os.name", Value: "windows"}}}},
		{"pin a Linux DaemonSet", LinuxDaemonSetUnpinned, cluster.Reference, fixLinuxDaemonSet, "myregistry/agent:1.0",
			&rule.Fix{Title: "pin the workload to linux nodes", Safe: true, Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.template.spec.nodeSelector[kubernetes.io/os]", Value: "linux"}}}},
		{"pin a tolerating Windows workload", TolerationWithoutSelector, cluster.Reference, fixUnpinnedPod, "mcr.microsoft.com/windows/nanoserver:ltsc2022",
			&rule.Fix{Title: "pin the workload to windows nodes", Safe: true, Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.nodeSelector[kubernetes.io/os]", Value: "windows"}}}},
		{"no pin for a workload of unknown OS", TolerationWithoutSelector, cluster.Reference, fixUnpinnedPod, "myregistry/app:1.0", nil},
		{"retag a Microsoft SAC image", SACImageEOL, cluster.Reference, fixWindowsPod, "mcr.microsoft.com/windows/servercore:1903",
			&rule.Fix{Title: "use mcr.microsoft.com/windows/servercore:ltsc2022", Safe: false, Edits: []rule.Edit{
				{Op: rule.Set, Path: "spec.containers[0].image", Value: "mcr.microsoft.com/windows/servercore:ltsc2022"}}}},
		{"no retag of another registry's image", SACImageEOL, cluster.Reference, fixWindowsPod, "myregistry/windows-app:1903", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := findings(t, tt.cluster(), strings.Replace(tt.yaml, "IMAGE", tt.image, 1), tt.rule)
			if len(fs) != 1 {
				t.Fatalf("got %d findings, want 1: %v", len(fs), fs)
			}
			if diff := cmp.Diff(tt.want, fs[0].Fix); diff != "" {
				t.Errorf("fix (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlacementAndImageSeverities checks the findings that report at another severity
// than their rule's.
func TestPlacementAndImageSeverities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rule    *rule.Rule
		cluster string
		yaml    string
		want    []rule.Severity
	}{
		{"daemonset kept off only by the taint", LinuxDaemonSetUnpinned, "reference", strings.Replace(fixLinuxDaemonSet, "IMAGE", "nginx:1.27", 1), []rule.Severity{rule.Warning}},
		{"daemonset on an untainted pool", LinuxDaemonSetUnpinned, "untainted", strings.Replace(fixLinuxDaemonSet, "IMAGE", "nginx:1.27", 1), []rule.Severity{rule.Error}},
		{"older image under Hyper-V", ImageBuildMismatch, "reference", `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: hyperv}
handler: runhcs-wcow-hypervisor
---
` + strings.Replace(strings.Replace(fixWindowsPod, "IMAGE", "mcr.microsoft.com/windows/servercore:ltsc2019", 1), "spec:\n", "spec:\n  runtimeClassName: hyperv\n", 1),
			[]rule.Severity{rule.Info}},
		{"older image under process isolation", ImageBuildMismatch, "reference", fixWindowsPod, []rule.Severity{rule.Error}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			yaml := strings.Replace(tt.yaml, "IMAGE", "mcr.microsoft.com/windows/servercore:ltsc2019", 1)
			var got []rule.Severity
			for _, f := range findings(t, testClusters[tt.cluster](), yaml, tt.rule) {
				got = append(got, f.Severity)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("severities (-want +got):\n%s", diff)
			}
		})
	}
}
