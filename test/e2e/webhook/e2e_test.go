package webhook_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/webhook"
	"github.com/winkube/winkube/test/controlplane"
)

// TestE2E drives the webhook through a real kube-apiserver v1.36.3 and
// kube-scheduler, and checks the end state the API server reports.
func TestE2E(t *testing.T) {
	e := startE2E(t, controlplane.Options{})
	ctx := t.Context()
	for _, ns := range []string{"apps", "kube-system"} {
		if err := e.cp.CreateNamespace(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	e.createNodes(t)

	t.Run("windows pod gets toleration and selector", func(t *testing.T) { e.testWindowsPodMutated(t) })
	t.Run("deployment template mutated", func(t *testing.T) { e.testDeploymentMutated(t) })
	t.Run("excluded namespace untouched", func(t *testing.T) { e.testExcludedNamespace(t) })
	t.Run("enforce", func(t *testing.T) { e.testMode(t, webhook.Enforce) })
	e.setMode(t, webhook.Warn)
	t.Run("warn", func(t *testing.T) { e.testMode(t, webhook.Warn) })
	t.Run("webhook down", func(t *testing.T) { e.testDown(t) })
}

func (e *e2e) createNodes(t *testing.T) {
	t.Helper()
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
	nodes := []*corev1.Node{
		{ObjectMeta: metav1.ObjectMeta{Name: "linux-1", Labels: map[string]string{corev1.LabelOSStable: "linux"}},
			Status: corev1.NodeStatus{Allocatable: alloc}},
		{ObjectMeta: metav1.ObjectMeta{Name: "windows-1", Labels: map[string]string{corev1.LabelOSStable: "windows", corev1.LabelWindowsBuild: "10.0.20348"}},
			Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}},
			Status: corev1.NodeStatus{Allocatable: alloc}},
	}
	for _, n := range nodes {
		if _, err := e.cp.CreateNode(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
}

// osTolerations returns the tolerations that match the os taint.
func osTolerations(p *corev1.PodSpec) []corev1.Toleration {
	var out []corev1.Toleration
	for _, tol := range p.Tolerations {
		if tol.Key == "os" || tol.Key == "" {
			out = append(out, tol)
		}
	}
	return out
}

func (e *e2e) testWindowsPodMutated(t *testing.T) {
	ctx := t.Context()
	if _, err := e.client.CoreV1().Pods("apps").Create(ctx, windowsPod("iis"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if w := e.warnings.take(); len(w) > 0 {
		t.Errorf("warnings for a pod the webhook could fix entirely: %q", w)
	}
	got, err := e.client.CoreV1().Pods("apps").Get(ctx, "iis", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{corev1.LabelOSStable: "windows"}, got.Spec.NodeSelector); diff != "" {
		t.Errorf("nodeSelector (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]corev1.Toleration{windowsToleration}, osTolerations(&got.Spec)); diff != "" {
		t.Errorf("tolerations of the os taint (-want +got):\n%s", diff)
	}
	// The end state that matters: the scheduler binds it to the Windows node.
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	node, msg, err := e.cp.WaitForPodScheduled(wait, "apps", "iis")
	if err != nil {
		t.Fatal(err)
	}
	if node != "windows-1" {
		t.Errorf("pod bound to %q (scheduler: %q), want windows-1", node, msg)
	}
}

func (e *e2e) testDeploymentMutated(t *testing.T) {
	ctx := t.Context()
	pod := windowsPod("")
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod.Spec},
		},
	}
	if _, err := e.client.AppsV1().Deployments("apps").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if w := e.warnings.take(); len(w) > 0 {
		t.Errorf("warnings for a template the webhook could fix entirely: %q", w)
	}
	got, err := e.client.AppsV1().Deployments("apps").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec := &got.Spec.Template.Spec
	if diff := cmp.Diff(map[string]string{corev1.LabelOSStable: "windows"}, spec.NodeSelector); diff != "" {
		t.Errorf("template nodeSelector (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]corev1.Toleration{windowsToleration}, spec.Tolerations); diff != "" {
		t.Errorf("template tolerations (-want +got):\n%s", diff)
	}
}

// testExcludedNamespace: kube-system is excluded by the registrations'
// namespaceSelector, so the pod is stored as sent.
func (e *e2e) testExcludedNamespace(t *testing.T) {
	ctx := t.Context()
	if _, err := e.client.CoreV1().Pods("kube-system").Create(ctx, windowsPod("untouched"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if w := e.warnings.take(); len(w) > 0 {
		t.Errorf("warnings for a pod in an excluded namespace: %q", w)
	}
	got, err := e.client.CoreV1().Pods("kube-system").Get(ctx, "untouched", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.NodeSelector) != 0 || len(osTolerations(&got.Spec)) != 0 {
		t.Errorf("pod in kube-system was changed: nodeSelector %v, tolerations %v", got.Spec.NodeSelector, got.Spec.Tolerations)
	}
}

// setMode rewrites the webhook's config file with another mode and waits
// until the webhook, polling the file, answers in that mode.
func (e *e2e) setMode(t *testing.T, mode webhook.Mode) {
	t.Helper()
	text := strings.Replace(e.config, "mode: enforce", "mode: "+string(mode), 1)
	if text == e.config {
		t.Fatalf("the shipped config has no %q line to change:\n%s", "mode: enforce", e.config)
	}
	writeFile(t, filepath.Join(e.dir, "config.yaml"), text)
	waitUntil(t, "the webhook reloads its config", func() (bool, string) {
		got, err := e.dryRunPod(t, "apps", windowsPod("reload-probe"))
		if err != nil {
			return false, err.Error()
		}
		// Only enforce and mutate fix; warn leaves the pod as sent.
		return (len(osTolerations(&got.Spec)) == 0) == (mode == webhook.Warn), fmt.Sprintf("tolerations %v", got.Spec.Tolerations)
	})
	e.warnings.take()
}

// testMode creates, in one mode, pods the webhook fixes, denies or warns
// about, and checks the API server's answer word for word.
func (e *e2e) testMode(t *testing.T, mode webhook.Mode) {
	runAsUser := func(p *corev1.Pod) *corev1.Pod {
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr(int64(1000))}
		return p
	}
	ltsc2019 := func(p *corev1.Pod) *corev1.Pod {
		p.Spec.Containers[0].Image = "mcr.microsoft.com/windows/servercore:ltsc2019"
		return p
	}
	noOS := func(p *corev1.Pod) *corev1.Pod { p.Spec.OS = nil; return p }
	name := func(base string) string { return base + "-" + string(mode) }
	const (
		buildMismatch = `spec.containers[0].image: image "mcr.microsoft.com/windows/servercore:ltsc2019" is built for Windows Server 2019 (10.0.17763) ` +
			`(unsupported as a node OS by Kubernetes 1.36) ` +
			`but the workload can land on Windows pool "windows" (10.0.20348); under process isolation its containers fail to start there: ` +
			`the container operating system does not match the host operating system (image-build-mismatch)`
	)
	tests := []struct {
		name string
		pod  *corev1.Pod
		// want per mode: the API server's error ("" = created) and the
		// warnings of its response.
		err      map[webhook.Mode]string
		warnings map[webhook.Mode][]string
		// tolerated: the stored pod tolerates the Windows taint.
		tolerated map[webhook.Mode]bool
	}{
		{
			// The API server's own validation runs before validating
			// webhooks and refuses this whatever the webhook's mode.
			name: "spec.os windows with runAsUser",
			pod:  runAsUser(placed(windowsPod(name("runasuser")))),
			err: map[webhook.Mode]string{
				webhook.Enforce: `Pod "runasuser-enforce" is invalid: spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod`,
				webhook.Warn:    `Pod "runasuser-warn" is invalid: spec.securityContext.runAsUser: Forbidden: cannot be set for a windows pod`,
			},
		},
		{
			// The API server accepts it; only the webhook knows the image
			// cannot start on the cluster's Windows Server 2022 nodes.
			name: "image for another windows build",
			pod:  ltsc2019(placed(windowsPod(name("ltsc2019")))),
			err:  map[webhook.Mode]string{webhook.Enforce: `admission webhook "validate.webhook.winkube.io" denied the request: ` + buildMismatch},
			// One finding per cause: the mismatch also says the build is unsupported.
			warnings: map[webhook.Mode][]string{
				webhook.Warn: {
					`image-build-mismatch: image "mcr.microsoft.com/windows/servercore:ltsc2019" is built for Windows Server 2019 (10.0.1776…`,
				},
			},
			tolerated: map[webhook.Mode]bool{webhook.Warn: true},
		},
		{
			// Setting spec.os.name would get it refused, so no mode does.
			name: "windows by selector with runAsUser",
			pod:  noOS(runAsUser(placed(windowsPod(name("selector-runasuser"))))),
			warnings: map[webhook.Mode][]string{
				webhook.Enforce: selectorRunAsUserWarnings,
				webhook.Warn:    selectorRunAsUserWarnings,
			},
			tolerated: map[webhook.Mode]bool{webhook.Enforce: true, webhook.Warn: true},
		},
		{
			name:      "windows pod without placement",
			pod:       windowsPod(name("unplaced")),
			warnings:  map[webhook.Mode][]string{webhook.Warn: {`missing-os-pin: Windows workload (from spec.os.name) has no kubernetes.io/os selector; the scheduler ignores spec.os.na…`}},
			tolerated: map[webhook.Mode]bool{webhook.Enforce: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.client.CoreV1().Pods("apps").Create(t.Context(), tt.pod, metav1.CreateOptions{})
			if got := errText(err); got != tt.err[mode] {
				t.Errorf("create:\n got %q\nwant %q", got, tt.err[mode])
			}
			if diff := cmp.Diff(tt.warnings[mode], e.warnings.take()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			got, err := e.client.CoreV1().Pods("apps").Get(t.Context(), tt.pod.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tolerated := len(osTolerations(&got.Spec)) > 0; tolerated != tt.tolerated[mode] {
				t.Errorf("stored pod tolerates the Windows taint: %v, want %v (tolerations %v)", tolerated, tt.tolerated[mode], got.Spec.Tolerations)
			}
		})
	}
}

var selectorRunAsUserWarnings = []string{
	`missing-spec-os: Windows workload (from nodeSelector) does not set spec.os.name: windows (spec.os.name)`,
	`windows-forbidden-field: spec.securityContext.runAsUser: rejected as soon as spec.os.name: windows is set (cannot be se…`,
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func ptr[T any](v T) *T { return &v }

// testDown stops the webhook: with the shipped failurePolicy (Ignore) the
// API server admits pods unfixed; with Fail it refuses them, except in the
// excluded namespaces.
func (e *e2e) testDown(t *testing.T) {
	ctx := t.Context()
	if err := e.stop(); err != nil {
		t.Errorf("webhook shutdown: %v", err)
	}
	if got := *e.mutating.Webhooks[0].FailurePolicy; got != admissionregistrationv1.Ignore {
		t.Fatalf("deploy/webhook.yaml ships failurePolicy %s; this test and deploy/README.md expect Ignore", got)
	}
	if _, err := e.client.CoreV1().Pods("apps").Create(ctx, windowsPod("down-ignore"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("failurePolicy Ignore, webhook down: %v", err)
	}
	got, err := e.client.CoreV1().Pods("apps").Get(ctx, "down-ignore", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(osTolerations(&got.Spec)) > 0 || len(got.Spec.NodeSelector) > 0 {
		t.Errorf("webhook down, yet the pod was fixed: %+v", got.Spec)
	}

	e.setFailurePolicy(t, admissionregistrationv1.Fail)
	port := strings.TrimPrefix(e.url, "https://127.0.0.1:")
	want := fmt.Sprintf(`Internal error occurred: failed calling webhook "mutate.webhook.winkube.io": failed to call webhook: `+
		`Post "%s/mutate?timeout=5s": dial tcp 127.0.0.1:%s: connect: connection refused`, e.url, port)
	_, err = e.client.CoreV1().Pods("apps").Create(ctx, windowsPod("down-fail"), metav1.CreateOptions{})
	if got := errText(err); got != want {
		t.Errorf("failurePolicy Fail, webhook down:\n got %q\nwant %q", got, want)
	}
	if _, err := e.client.CoreV1().Pods("kube-system").Create(ctx, windowsPod("down-kube-system"), metav1.CreateOptions{}); err != nil {
		t.Errorf("failurePolicy Fail, webhook down: kube-system is excluded, yet: %v", err)
	}
}

// setFailurePolicy updates both registrations and waits until the API
// server applies the new policy.
func (e *e2e) setFailurePolicy(t *testing.T, p admissionregistrationv1.FailurePolicyType) {
	t.Helper()
	ctx := t.Context()
	regs := e.client.AdmissionregistrationV1()
	m, err := regs.MutatingWebhookConfigurations().Get(ctx, e.mutating.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.Webhooks[0].FailurePolicy = &p
	if _, err := regs.MutatingWebhookConfigurations().Update(ctx, m, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := regs.ValidatingWebhookConfigurations().Get(ctx, e.validating.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v.Webhooks[0].FailurePolicy = &p
	if _, err := regs.ValidatingWebhookConfigurations().Update(ctx, v, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the API server applies failurePolicy "+string(p), func() (bool, string) {
		_, err := e.dryRunPod(t, "apps", windowsPod("policy-probe"))
		return (err != nil) == (p == admissionregistrationv1.Fail), errText(err)
	})
}
