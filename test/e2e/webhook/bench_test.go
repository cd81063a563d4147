package webhook_test

import (
	"bufio"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/webhook"
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
				lat := createPods(b, e, workers, &seq)
				if registered {
					// Time inside the webhook's handlers (mutate and validate),
					// from its own histogram: the rest is the API server's calls.
					b.ReportMetric((e.webhookSeconds(b)-served)*1000/float64(b.N), "in-webhook-ms/op")
				}
				slices.Sort(lat)
				pct := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
				b.ReportMetric(ms(pct(0.50)), "p50-ms")
				b.ReportMetric(ms(pct(0.99)), "p99-ms")
				b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
				if !registered {
					baseline[workers] = pct(0.99)
				} else if base, ok := baseline[workers]; ok {
					b.ReportMetric(ms(pct(0.99)-base), "added-p99-ms")
				}
			})
		}
	}
}

// createPods creates b.N pods from workers goroutines and returns the
// latency of each create.
func createPods(b *testing.B, e *e2e, workers int, seq *atomic.Int64) []time.Duration {
	b.Helper()
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []error
	b.ResetTimer()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				pod := windowsPod(fmt.Sprintf("bench-%d", seq.Add(1)))
				start := time.Now()
				_, err := e.client.CoreV1().Pods("bench").Create(b.Context(), pod, metav1.CreateOptions{})
				lat[i] = time.Since(start)
				if err != nil {
					mu.Lock()
					failed = append(failed, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if len(failed) > 0 {
		b.Fatalf("%d of %d creates failed; the first: %v", len(failed), b.N, failed[0])
	}
	return lat
}

// webhookSeconds is the total time the webhook spent answering requests,
// the sum of its request duration histogram over endpoints.
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

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
