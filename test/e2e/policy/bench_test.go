package policy

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/bench"
)

// benchPod is a Windows pod every winkube rule admits: pinned, tolerating
// the Windows taint, spec.os.name set. Admission evaluates every rule and
// changes nothing.
func benchPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			OS:           &corev1.PodOS{Name: corev1.Windows},
			NodeSelector: map[string]string{"kubernetes.io/os": "windows"},
			Tolerations:  []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{Name: "app", Image: "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022",
				Ports: []corev1.ContainerPort{{ContainerPort: 80}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
				}}},
		},
	}
}

// benchLinuxPod is the common pod of a hybrid cluster: pinned to Linux,
// no Windows signal. No exported rule can fire on it, so the policies'
// match conditions skip it before any variable is evaluated.
func benchLinuxPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
			Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27",
				Ports: []corev1.ContainerPort{{ContainerPort: 80}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
				}}},
		},
	}
}

// BenchmarkPodCreateAdmission measures a pod create through a real
// kube-apiserver v1.36.3 with no winkube admission, with every exported
// policy installed (ValidatingAdmissionPolicy in enforce mode and the
// MutatingAdmissionPolicy), and with winkube's webhook registered
// (mutating and validating, in this process on 127.0.0.1), in one run,
// and with the validating policies alone (the default, without --fixes),
// sequentially and from 8 goroutines. Each sub-benchmark reports p50, p90
// and p99; added-p99-ms is over the same concurrency without admission.
// pod=windows is benchPod (every check evaluated), pod=linux
// benchLinuxPod (skipped by the match conditions).
//
//	go test ./test/e2e/policy -run '^$' -bench PodCreateAdmission -benchtime 400x
func BenchmarkPodCreateAdmission(b *testing.B) {
	s := startServer(b)
	m := winsupport.Default()
	installSet(b, s, "bench", policy.Options{Rules: rules.Suite(), Model: m, Mode: policy.Enforce, Fixes: true})
	installSet(b, s, "bench-vap", policy.Options{Rules: rules.Suite(), Model: m, Mode: policy.Enforce})
	startWebhook(b, s, "mode: enforce\n")
	s.namespace(b, "none", nil, testClusters["reference"](), m)
	s.namespace(b, "policies", map[string]string{policiesLabel: "bench"}, testClusters["reference"](), m)
	s.namespace(b, "webhook", map[string]string{webhookLabel: "on"}, testClusters["reference"](), m)
	s.namespace(b, "validating-only", map[string]string{policiesLabel: "bench-vap"}, testClusters["reference"](), m)
	probe := mustObject(b, unpinnedCanary)
	for _, ns := range []string{"policies", "webhook"} {
		s.waitActive(b, ns, probe, func(o outcome) bool { return o.err == nil && o.obj != nil && podSpec(o.obj)["nodeSelector"] != nil })
	}
	var seq atomic.Int64
	type key struct {
		pod     string
		workers int
	}
	baseline := map[key]time.Duration{}
	pods := map[string]func(string) *corev1.Pod{"windows": benchPod, "linux": benchLinuxPod}
	for _, pod := range []string{"windows", "linux"} {
		for _, ns := range []string{"none", "policies", "validating-only", "webhook"} {
			if pod == "linux" && ns == "policies" {
				continue // the same match conditions as validating-only
			}
			for _, workers := range []int{1, 8} {
				b.Run(fmt.Sprintf("pod=%s/admission=%s/concurrency=%d", pod, ns, workers), func(b *testing.B) {
					lat := bench.CreatePods(b, s.kube, ns, workers, func() *corev1.Pod { return pods[pod](fmt.Sprintf("bench-%d", seq.Add(1))) })
					p99 := bench.Percentile(lat, 0.99)
					b.ReportMetric(bench.Ms(bench.Percentile(lat, 0.50)), "p50-ms")
					b.ReportMetric(bench.Ms(bench.Percentile(lat, 0.90)), "p90-ms")
					b.ReportMetric(bench.Ms(p99), "p99-ms")
					if ns == "none" {
						baseline[key{pod, workers}] = p99
					} else {
						b.ReportMetric(bench.Ms(p99-baseline[key{pod, workers}]), "added-p99-ms")
					}
				})
			}
		}
	}
}
