package webhook

import (
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// A kind the webhook checks, and where its pod spec sits.
type kind struct {
	name string
	spec string // field path prefix of the pod spec, e.g. "spec.template.spec."
}

var kinds = []kind{
	{"Pod", "spec."},
	{"Deployment", "spec.template.spec."},
	{"StatefulSet", "spec.template.spec."},
	{"DaemonSet", "spec.template.spec."},
	{"ReplicaSet", "spec.template.spec."},
	{"Job", "spec.template.spec."},
	{"CronJob", "spec.jobTemplate.spec.template.spec."},
}

// object wraps a pod spec (JSON) into an object of the kind, as JSON, with
// the labels on the object and its template.
func object(t *testing.T, k kind, name, namespace, spec string, labels map[string]string) string {
	t.Helper()
	var ps map[string]any
	if err := json.Unmarshal([]byte(spec), &ps); err != nil {
		t.Fatalf("pod spec: %v", err)
	}
	meta := map[string]any{"name": name, "namespace": namespace}
	if labels != nil {
		meta["labels"] = labels
	}
	tmpl := map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}}, "spec": ps}
	sel := map[string]any{"matchLabels": map[string]any{"app": name}}
	var obj map[string]any
	switch k.name {
	case "Pod":
		obj = map[string]any{"apiVersion": "v1", "spec": ps}
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet":
		obj = map[string]any{"apiVersion": "apps/v1", "spec": map[string]any{"selector": sel, "template": tmpl}}
	case "Job":
		obj = map[string]any{"apiVersion": "batch/v1", "spec": map[string]any{"template": tmpl}}
	case "CronJob":
		obj = map[string]any{"apiVersion": "batch/v1", "spec": map[string]any{"schedule": "*/5 * * * *",
			"jobTemplate": map[string]any{"spec": map[string]any{"template": tmpl}}}}
	default:
		t.Fatalf("no kind %s", k.name)
	}
	obj["kind"], obj["metadata"] = k.name, meta
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// applyPatch applies a JSON patch to an object as the API server does.
func applyPatch(t *testing.T, obj string, patch []byte) string {
	t.Helper()
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		t.Fatalf("decoding the patch %s: %v", patch, err)
	}
	out, err := p.Apply([]byte(obj))
	if err != nil {
		t.Fatalf("applying the patch %s: %v", patch, err)
	}
	return string(out)
}

// Pod specs. Resources are set so that the Windows resource rules stay
// quiet and each spec shows the one problem it is about.
const (
	// A Windows pod in every respect but runAsUser, which the API server
	// forbids for Windows pods.
	specWindowsRunAsUser = `{
		"os": {"name": "windows"},
		"nodeSelector": {"kubernetes.io/os": "windows"},
		"tolerations": [{"key": "os", "operator": "Equal", "value": "windows", "effect": "NoSchedule"}],
		"securityContext": {"runAsUser": 1000},
		"containers": [{"name": "web", "image": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
			"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}]}`
	// A Windows image and nothing else: no selector, no spec.os, no
	// toleration.
	specWindowsUnpinned = `{
		"containers": [{"name": "web", "image": "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
			"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}]}`
	// A Linux pod pinned to Linux.
	specLinuxPinned = `{
		"os": {"name": "linux"},
		"nodeSelector": {"kubernetes.io/os": "linux"},
		"containers": [{"name": "web", "image": "nginx:1.27"}]}`
	// A Linux pod that may land on a Windows node.
	specLinuxUnpinned = `{"containers": [{"name": "web", "image": "nginx:1.27"}]}`
)
