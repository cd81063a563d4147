package webhook_test

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/webhook"
	"github.com/winkube/winkube/test/bench"
	"github.com/winkube/winkube/test/controlplane"
)

// BenchmarkPodCreateThroughAPIServer measures creating a pod through a real
// kube-apiserver v1.36.3 without and then with the webhook registered as
// deploy/webhook.yaml registers it (mutating and validating, the webhook
// in this process on 127.0.0.1). The pod is a Windows pod that the
// webhook fixes (toleration and selector), the most work it does for a
// pod that it admits. Each sub-benchmark reports the client-side p50, p99
// and max latency of its creates; those with the webhook also report the
// p99 it adds over the same concurrency without it (added-p99-ms).
//
//	go test ./internal/webhook -run '^$' -bench PodCreateThroughAPIServer -benchtime 500x
func BenchmarkPodCreateThroughAPIServer(b *testing.B) {
	e := newE2E(b, controlplane.Options{NoScheduler: true})
	if err := e.cp.CreateNamespace(b.Context(), "bench"); err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	baseline := map[int]time.Duration{} // p99 without the webhook, by concurrency
	for _, registered := range []bool{false, true} {
		if registered {
			e.register(b)
		}
		for _, workers := range []int{1, 8} {
			b.Run(fmt.Sprintf("webhook=%v/concurrency=%d", registered, workers), func(b *testing.B) {
				served := e.webhookSeconds(b)
				lat := bench.CreatePods(b, e.client, "bench", workers, func() *corev1.Pod { return windowsPod(fmt.Sprintf("bench-%d", seq.Add(1))) })
				if registered {
					// Time inside the webhook's handlers (mutate and validate),
					// from its own histogram: the rest is the API server's calls.
					b.ReportMetric((e.webhookSeconds(b)-served)*1000/float64(b.N), "in-webhook-ms/op")
				}
				p99 := bench.Percentile(lat, 0.99)
				b.ReportMetric(bench.Ms(bench.Percentile(lat, 0.50)), "p50-ms")
				b.ReportMetric(bench.Ms(p99), "p99-ms")
				b.ReportMetric(bench.Ms(lat[len(lat)-1]), "max-ms")
				if !registered {
					baseline[workers] = p99
				} else if base, ok := baseline[workers]; ok {
					b.ReportMetric(bench.Ms(p99-base), "added-p99-ms")
				}
			})
		}
	}
}

func (e *e2e) webhookSeconds(b *testing.B) float64 {
	b.Helper()
	tr := &http.Transport{TLSClientConfig: webhookTLS(e.caPEM)}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get(e.url + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	total := 0.0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(name, webhook.MetricDuration+"_sum") {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			b.Fatalf("metrics: %q: %v", sc.Text(), err)
		}
		total += v
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return total
}
