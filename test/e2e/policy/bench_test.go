package policy

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/winkube/winkube/internal/policy"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/bench"
)

// benchPods are testdata/benchpods.yaml's pods by name, which
// hack/controlplane/policycost measures in process too: windows, which
// every check evaluates and none reports, and linux, which the policies'
// match condition skips.
func benchPods(b *testing.B) map[string]*corev1.Pod {
	f, err := os.Open("testdata/benchpods.yaml")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	out := map[string]*corev1.Pod{}
	d := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var pod corev1.Pod
		if err := d.Decode(&pod); errors.Is(err, io.EOF) {
			if out["windows"] == nil || out["linux"] == nil {
				b.Fatalf("testdata/benchpods.yaml: want the pods windows and linux, got %d pods", len(out))
			}
			return out
		} else if err != nil {
			b.Fatalf("testdata/benchpods.yaml: %v", err)
		}
		out[pod.Name] = &pod
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
// pod=windows and pod=linux are benchPods' (every check evaluated; skipped
// by the match condition).
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
	// The validating policies become active on their own schedule: wait
	// until the canary is denied and warned about in both policy
	// namespaces, or the first creates are measured without them.
	for ns, set := range map[string]string{"policies": "bench", "validating-only": "bench-vap"} {
		s.waitActive(b, ns, mustObject(b, windowsCanary), func(o outcome) bool {
			w, d, _ := policyRules(o, set)
			return d != "" && w["windows-missing-resources"]
		})
	}
	var seq atomic.Int64
	type key struct {
		pod     string
		workers int
	}
	baseline := map[key]time.Duration{}
	pods := benchPods(b)
	for _, pod := range []string{"windows", "linux"} {
		for _, ns := range []string{"none", "policies", "validating-only", "webhook"} {
			if pod == "linux" && ns == "policies" {
				continue // the same match conditions as validating-only
			}
			for _, workers := range []int{1, 8} {
				b.Run(fmt.Sprintf("pod=%s/admission=%s/concurrency=%d", pod, ns, workers), func(b *testing.B) {
					lat := bench.CreatePods(b, s.kube, ns, workers, func() *corev1.Pod {
						p := pods[pod].DeepCopy()
						p.Name = fmt.Sprintf("bench-%d", seq.Add(1))
						return p
					})
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
