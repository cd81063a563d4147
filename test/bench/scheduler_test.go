package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/test/controlplane"
)

// BenchmarkRealScheduler has the real kube-scheduler place 5,000 pods of
// the same mix on 500 nodes, with client rate limits raised far above the
// defaults so that the API server, not the limiter, bounds it. The time
// runs from the first pod's creation until the last pod is bound: what
// the cluster takes to schedule a release of that size.
func BenchmarkRealScheduler(b *testing.B) {
	const nodes, workloads, replicas = 500, 100, 50
	cp := controlplane.StartT(b, controlplane.Options{SchedulerQPS: 20000, SchedulerBurst: 40000})
	cfg := rest.CopyConfig(cp.Config)
	cfg.QPS, cfg.Burst = 20000, 40000
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	ns, _ := Cluster(nodes).Nodes()
	if err := inParallel(16, len(ns), func(i int) error { _, err := cp.CreateNode(ctx, ns[i]); return err }); err != nil {
		b.Fatal(err)
	}
	if err := cp.CreateNamespace(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	var pods []*corev1.Pod
	for i, t := range Templates(workloads) {
		for r := range replicas {
			pods = append(pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%d-%d", i, r), Namespace: "bench", Labels: t.Labels}, Spec: t.Spec})
		}
	}
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		d, err := scheduleAll(ctx, client, pods)
		if err != nil {
			b.Fatal(err)
		}
		total += d
		b.StopTimer()
		if err := deleteAll(ctx, client); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(len(pods)*b.N)/total.Seconds(), "pods/s")
}

// scheduleAll creates the pods (32 at a time) and waits until every one
// is bound, returning the time from the first creation to the last bind.
func scheduleAll(ctx context.Context, client kubernetes.Interface, pods []*corev1.Pod) (time.Duration, error) {
	list, err := client.CoreV1().Pods("bench").List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	start := time.Now()
	created := make(chan error, 1)
	go func() {
		created <- inParallel(32, len(pods), func(i int) error {
			_, err := client.CoreV1().Pods("bench").Create(ctx, pods[i], metav1.CreateOptions{})
			return err
		})
	}()
	bound := map[string]bool{}
	rv := list.ResourceVersion
	for len(bound) < len(pods) {
		// A watch may end early (the server closes busy watches); carry on
		// from the last version seen.
		w, err := client.CoreV1().Pods("bench").Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			return 0, err
		}
		if rv, err = countBound(w, bound, len(pods), created); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// countBound records bound pods from the watch until all n are bound or
// the watch ends, returning the last resource version seen.
func countBound(w watch.Interface, bound map[string]bool, n int, created <-chan error) (string, error) {
	defer w.Stop()
	rv := ""
	stall := time.NewTimer(time.Minute)
	defer stall.Stop()
	for len(bound) < n {
		select {
		case err := <-created:
			if err != nil {
				return "", fmt.Errorf("creating pods: %w", err)
			}
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, nil
			}
			if ev.Type == watch.Error {
				return "", fmt.Errorf("watch: %v", ev.Object)
			}
			p, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			rv = p.ResourceVersion
			if p.Spec.NodeName != "" && !bound[p.Name] {
				bound[p.Name] = true
				stall.Reset(time.Minute)
			}
		case <-stall.C:
			return "", fmt.Errorf("no pod bound for a minute; %d of %d bound", len(bound), n)
		}
	}
	return rv, nil
}

func deleteAll(ctx context.Context, client kubernetes.Interface) error {
	zero := int64(0)
	if err := client.CoreV1().Pods("bench").DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		return err
	}
	for {
		list, err := client.CoreV1().Pods("bench").List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil || len(list.Items) == 0 {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// inParallel calls fn(0..n-1) on workers goroutines and returns the first
// error.
func inParallel(workers, n int, fn func(i int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
