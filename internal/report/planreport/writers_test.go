package planreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/plan"
	"github.com/winkube/winkube/internal/simulate"
)

const hostile = `<script>alert("x")</script>`

func sample() *plan.Report {
	return &plan.Report{
		KubernetesBefore: "1.33", KubernetesAfter: "1.34",
		Changes: []plan.Change{{Kind: "set-pool", Target: "win", Detail: "windowsBuild 10.0.20348 -> 10.0.26100"}},
		Summary: plan.Summary{Workloads: 2, Unchanged: 1, Breaks: 1, ReplicasLost: 2},
		Pools: []plan.PoolDiff{{Pool: "win", OS: "windows", BuildBefore: "10.0.20348", BuildAfter: "10.0.26100", NodesBefore: 2, NodesAfter: 2, PodsBefore: 2,
			UsageBefore: &simulate.PoolUsage{Pool: "win", Requested: simulate.Resources{MilliCPU: 1000}, Allocatable: simulate.Resources{MilliCPU: 4000}}}},
		Workloads: []plan.Workload{
			{Workload: "Deployment/shop/web", Verdict: plan.Unchanged},
			{Workload: "Deployment/shop/iis", Verdict: plan.Breaks,
				Before: plan.State{Status: "scheduled", Replicas: 2, Ready: 2, Pools: []simulate.PoolCount{{Pool: "win", Count: 2}}},
				After:  plan.State{Status: "pending", Replicas: 2, Pending: 2},
				Causes: []plan.Cause{{Kind: "runtime", ID: "FailedScheduling", Severity: "error", Message: "0/2 nodes are available: " + hostile}}},
		},
		Steps: []plan.Step{{Number: 1, Kind: "cordon", Title: "Cordon the old pool(s) win", Commands: []string{"kubectl cordon -l kubernetes.io/os=windows"}}},
	}
}

func TestWriters(t *testing.T) {
	t.Parallel()
	var txt, js, page bytes.Buffer
	if err := WriteText(&txt, sample(), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Plan: Kubernetes 1.33 -> 1.34", "BREAKS Deployment/shop/iis", "before: scheduled 2/2 ready (win 2)",
		"after:  pending 0/2 ready", "[FailedScheduling] 0/2 nodes are available", "1. Cordon the old pool(s) win", "$ kubectl cordon",
		"win                  windows nodes 2 -> 2, pods 2 -> 0, build 10.0.20348 -> 10.0.26100", "1 break, 0 lose replicas: 2 ready replicas lost"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	if strings.Contains(txt.String(), "Deployment/shop/web") {
		t.Error("text lists an unchanged workload")
	}
	if err := WriteJSON(&js, sample()); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got["apiVersion"] != APIVersion || got["kind"] != Kind || len(got["workloads"].([]any)) != 2 || len(got["changes"].([]any)) != 1 || len(got["steps"].([]any)) != 1 {
		t.Errorf("JSON %v", got)
	}
	if err := WriteHTML(&page, sample()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), hostile) || !strings.Contains(page.String(), "&lt;script&gt;") {
		t.Error("the HTML does not escape a message")
	}
	if !strings.Contains(page.String(), `data-replicas-lost="2">2 ready replicas lost`) {
		t.Error("the HTML summary lacks the ready replicas lost")
	}
	if !strings.Contains(page.String(), `data-percent="25.0"`) {
		t.Error("the HTML lacks the win pool's CPU before, 25.0%")
	}
}
