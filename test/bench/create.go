package bench

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// CreatePods creates b.N pods in ns from workers goroutines through the
// real API server, each from newPod, and returns the latency of each
// create, sorted. Any failed create fails the benchmark.
func CreatePods(b *testing.B, client kubernetes.Interface, ns string, workers int, newPod func() *corev1.Pod) []time.Duration {
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
				pod := newPod()
				start := time.Now()
				_, err := client.CoreV1().Pods(ns).Create(b.Context(), pod, metav1.CreateOptions{})
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
		b.Fatalf("%d of %d creates in %s failed; the first: %v", len(failed), b.N, ns, failed[0])
	}
	slices.Sort(lat)
	return lat
}

// Percentile is the p-quantile of sorted latencies.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	return sorted[int(p*float64(len(sorted)-1))]
}

// Ms is d in milliseconds, for b.ReportMetric.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
