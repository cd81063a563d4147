package webhook

import (
	"encoding/json"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// modify decodes a review, changes its request and encodes it again.
func modify(t *testing.T, body []byte, change func(*admissionv1.AdmissionRequest)) []byte {
	t.Helper()
	var r admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	change(r.Request)
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const configHeader = "apiVersion: winkube.io/v1alpha1\nkind: WebhookConfig\n"

// TestScope checks which requests are checked: a checked request for the
// pod with a forbidden field is denied, one left alone is allowed.
func TestScope(t *testing.T) {
	t.Parallel()
	pod, deploy := kinds[0], kinds[1]
	owned := func(apiVersion, kind string) func(*testing.T) string {
		return func(t *testing.T) string {
			var o map[string]any
			json.Unmarshal([]byte(object(t, pod, "web-x7k2p", "shop", specWindowsRunAsUser, nil)), &o)
			o["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{
				"apiVersion": apiVersion, "kind": kind, "name": "web", "uid": "1", "controller": true}}
			b, _ := json.Marshal(o)
			return string(b)
		}
	}
	labelled := func(labels map[string]string) func(*testing.T) string {
		return func(t *testing.T) string { return object(t, deploy, "web", "shop", specWindowsRunAsUser, labels) }
	}
	inNamespace := func(ns string) func(*testing.T) string {
		return func(t *testing.T) string { return object(t, pod, "web", ns, specWindowsRunAsUser, nil) }
	}
	tests := []struct {
		name    string
		config  string
		object  func(*testing.T) string
		change  func(*admissionv1.AdmissionRequest)
		checked bool
	}{
		{name: "default namespace", object: inNamespace("default"), checked: true},
		{name: "kube-system excluded by default", object: inNamespace("kube-system")},
		{name: "excluded namespace", config: "namespaces: {exclude: [winkube-system]}", object: inNamespace("winkube-system")},
		{name: "kube-system when the config excludes others", config: "namespaces: {exclude: [winkube-system]}", object: inNamespace("kube-system"), checked: true},
		{name: "included namespace", config: "namespaces: {include: [shop]}", object: inNamespace("shop"), checked: true},
		{name: "namespace not included", config: "namespaces: {include: [shop]}", object: inNamespace("other")},
		{name: "exclude wins over include", config: "namespaces: {include: [shop], exclude: [shop]}", object: inNamespace("shop")},
		{name: "pod named by the request only", object: func(t *testing.T) string { return object(t, pod, "web", "", specWindowsRunAsUser, nil) },
			change: func(r *admissionv1.AdmissionRequest) { r.Namespace = "kube-system" }},
		{name: "objectSelector matches", config: "objectSelector: {matchLabels: {winkube.io/check: \"true\"}}",
			object: labelled(map[string]string{"winkube.io/check": "true"}), checked: true},
		{name: "objectSelector does not match", config: "objectSelector: {matchLabels: {winkube.io/check: \"true\"}}",
			object: labelled(map[string]string{"app": "web"})},
		{name: "objectSelector with an expression", config: "objectSelector: {matchExpressions: [{key: winkube.io/skip, operator: DoesNotExist}]}",
			object: labelled(map[string]string{"winkube.io/skip": ""})},
		{name: "pod of a ReplicaSet", object: owned("apps/v1", "ReplicaSet")},
		{name: "pod of a Job", object: owned("batch/v1", "Job")},
		{name: "pod of a ReplicaSet with controlledPods: check", config: "controlledPods: check", object: owned("apps/v1", "ReplicaSet"), checked: true},
		{name: "pod of a custom controller", object: owned("argoproj.io/v1alpha1", "Rollout"), checked: true},
		{name: "DELETE", object: inNamespace("shop"), change: func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Delete }},
		{name: "CONNECT", object: inNamespace("shop"), change: func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Connect }},
		{name: "subresource", object: inNamespace("shop"), change: func(r *admissionv1.AdmissionRequest) { r.SubResource = "status" }},
		{name: "other kind", object: inNamespace("shop"), change: func(r *admissionv1.AdmissionRequest) {
			r.Kind = metav1.GroupVersionKind{Version: "v1", Kind: "PodTemplate"}
		}},
		{name: "being deleted", object: func(t *testing.T) string {
			return strings.Replace(object(t, pod, "web", "shop", specWindowsRunAsUser, nil), `"metadata":{`, `"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z",`, 1)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			config := ""
			if tc.config != "" {
				config = configHeader + tc.config + "\n"
			}
			f := start(t, config, nil)
			body := review(t, tc.object(t), "")
			if tc.change != nil {
				body = modify(t, body, tc.change)
			}
			v := f.admit("validate", body)
			if v.Allowed == tc.checked {
				t.Errorf("allowed=%v (%+v), want checked=%v", v.Allowed, v.Result, tc.checked)
			}
			if !tc.checked && (v.Warnings != nil || v.Result != nil) {
				t.Errorf("left alone, yet warnings=%q result=%+v", v.Warnings, v.Result)
			}
		})
	}
}

// TestUpdate checks that an UPDATE ratchets: what the old object already
// had is warned about, not denied or fixed; pods are never patched.
func TestUpdate(t *testing.T) {
	t.Parallel()
	f := start(t, "", nil)
	pod, deploy := kinds[0], kinds[1]
	bad := object(t, deploy, "web", "shop", specWindowsRunAsUser, nil)
	relabelled := object(t, deploy, "web", "shop", specWindowsRunAsUser, map[string]string{"team": "a"})
	good := strings.Replace(bad, `"securityContext":{"runAsUser":1000},`, "", 1)
	if good == bad {
		t.Fatal("fixture: runAsUser not removed")
	}

	v := f.admit("validate", review(t, relabelled, bad))
	want := "windows-forbidden-field: spec.template.spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod"
	if !v.Allowed || len(v.Warnings) != 1 || v.Warnings[0] != want {
		t.Errorf("pre-existing error: allowed=%v warnings=%q, want allowed with [%q]", v.Allowed, v.Warnings, want)
	}
	if v := f.admit("validate", review(t, bad, good)); v.Allowed {
		t.Error("new error on UPDATE: allowed, want denied")
	}

	unpinned := object(t, deploy, "web", "shop", specWindowsUnpinned, nil)
	unpinnedV2 := object(t, deploy, "web", "shop", specWindowsUnpinned, map[string]string{"v": "2"})
	if m := f.admit("mutate", review(t, unpinnedV2, unpinned)); m.Patch != nil {
		t.Errorf("pre-existing fixable findings: patch %s, want none", m.Patch)
	}
	if m := f.admit("mutate", review(t, unpinned, object(t, deploy, "web", "shop", specLinuxPinned, nil))); m.Patch == nil {
		t.Error("new fixable findings on UPDATE: no patch")
	}
	podUnpinned := object(t, pod, "web", "shop", specWindowsUnpinned, nil)
	if m := f.admit("mutate", review(t, podUnpinned, object(t, pod, "web", "shop", specLinuxPinned, nil))); m.Patch != nil {
		t.Errorf("pod UPDATE: patch %s, want none (pod specs are immutable)", m.Patch)
	}
}

// TestRuntimeClass checks a workload naming a RuntimeClass: unknown, its
// placement errors are only warnings; listed, its scheduling counts.
func TestRuntimeClass(t *testing.T) {
	t.Parallel()
	deploy := kinds[1]
	spec := strings.Replace(specWindowsUnpinned, `{`, `{"runtimeClassName": "windows-2022",`, 1)
	obj := object(t, deploy, "web", "shop", spec, nil)

	f := start(t, "", nil)
	v := f.admit("validate", review(t, obj, ""))
	if !v.Allowed || !strings.HasPrefix(strings.Join(v.Warnings, "\n"), "missing-os-pin: ") {
		t.Errorf("unknown RuntimeClass: allowed=%v warnings=%q result=%+v, want allowed with a missing-os-pin warning", v.Allowed, v.Warnings, v.Result)
	}
	if m := f.admit("mutate", review(t, obj, "")); strings.Contains(string(m.Patch), "nodeSelector") || strings.Contains(string(m.Patch), "tolerations") {
		t.Errorf("unknown RuntimeClass: patch %s changes placement", m.Patch)
	}

	f = start(t, configHeader+`runtimeClasses:
- metadata: {name: windows-2022}
  handler: runhcs-wcow-process
  scheduling:
    nodeSelector: {kubernetes.io/os: windows, node.kubernetes.io/windows-build: "10.0.20348"}
    tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
`, nil)
	v = f.admit("validate", review(t, obj, ""))
	if !v.Allowed || strings.Contains(strings.Join(v.Warnings, "\n"), "missing-os-pin") {
		t.Errorf("listed RuntimeClass: allowed=%v warnings=%q result=%+v, want allowed and pinned", v.Allowed, v.Warnings, v.Result)
	}
}
