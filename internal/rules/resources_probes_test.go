package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/rule"
)

func TestStartupProbeFix(t *testing.T) {
	t.Parallel()
	fs := findings(t, nil, `apiVersion: v1
kind: Pod
metadata: {name: iis}
spec:
  os: {name: windows}
  containers:
  - name: web
    image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022
    livenessProbe:
      httpGet: {path: /healthz, port: 80, httpHeaders: [{name: Host, value: shop}]}
      initialDelaySeconds: 5
      timeoutSeconds: 3
  - name: named
    image: mcr.microsoft.com/windows/servercore:ltsc2022
    livenessProbe:
      tcpSocket: {port: http}
`, LoadError, WindowsMissingStartupProbe)
	want := []*rule.Fix{
		{Title: "add a startup probe to container web", Safe: true, Edits: []rule.Edit{{Op: rule.Set, Path: "spec.containers[0].startupProbe", Value: map[string]any{
			"httpGet":          map[string]any{"path": "/healthz", "port": int64(80), "httpHeaders": []any{map[string]any{"name": "Host", "value": "shop"}}},
			"timeoutSeconds":   int64(3),
			"periodSeconds":    int64(10),
			"failureThreshold": int64(30),
		}}}},
		{Title: "add a startup probe to container named", Safe: true, Edits: []rule.Edit{{Op: rule.Set, Path: "spec.containers[1].startupProbe", Value: map[string]any{
			"tcpSocket":        map[string]any{"port": "http"},
			"periodSeconds":    int64(10),
			"failureThreshold": int64(30),
		}}}},
	}
	var got []*rule.Fix
	for _, f := range fs {
		got = append(got, f.Fix)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixes (-want +got):\n%s", diff)
	}
}

func TestMissingResources(t *testing.T) {
	t.Parallel()
	cases := []struct {
		yaml string
		want []string
	}{
		{`{}`, []string{"requests.cpu", "requests.memory", "limits.memory"}},
		{`{limits: {cpu: "1", memory: 1Gi}}`, nil},
		{`{requests: {cpu: "1", memory: 1Gi}}`, []string{"limits.memory"}},
		{`{requests: {memory: 1Gi}, limits: {cpu: "1"}}`, []string{"limits.memory"}},
		{`{requests: {cpu: 100m}, limits: {memory: 1Gi}}`, nil},
	}
	for _, c := range cases {
		fs := findings(t, nil, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  os: {name: windows}\n  containers:\n  - name: c\n    image: x\n    resources: "+c.yaml+"\n", LoadError, WindowsMissingResources)
		var got []string
		for _, f := range fs {
			if f.Rule != WindowsMissingResources.ID {
				t.Fatalf("resources %s: %s", c.yaml, f.Message)
			}
			got = append(got, f.Hint)
		}
		var want []string
		if c.want != nil {
			want = []string{"missing: c: " + resourceList(c.want) + ". Requests keep the scheduler from overcommitting the node; a memory limit is the only cap on a Windows container's memory"}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("resources %s (-want +got):\n%s", c.yaml, diff)
		}
	}
}
