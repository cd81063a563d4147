package simulate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/controlplane"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/winsupport"
)

// The benchmarks compare winkube's simulator with the real kube-scheduler
// on the same kind of cluster and workload mix; hack/bench-simulate.sh runs
// them and prints both rates and their ratio (docs/performance.md).

// benchCluster is a hybrid cluster of n nodes: 70% Linux, 30% Windows in
// two builds, Windows tainted os=windows:NoSchedule, three zones.
func benchCluster(n int) *cluster.Cluster {
	pool := func(name, os, build string, count int) cluster.Pool {
		p := cluster.Pool{Name: name, Count: count, OS: os, WindowsBuild: build, CPU: resource.MustParse("16"),
			Memory: resource.MustParse("64Gi"), MaxPods: 110, Zones: []string{"z1", "z2", "z3"}}
		if os == "windows" {
			p.Taints = []corev1.Taint{cluster.WindowsTaint}
		}
		return p
	}
	return &cluster.Cluster{Pools: []cluster.Pool{
		pool("linux", "linux", "", n*7/10),
		pool("ws2022", "windows", "10.0.20348", n*2/10),
		pool("ws2025", "windows", "10.0.26100", n-n*7/10-n*2/10),
	}}
}

// benchTemplates returns the pod templates of workloads workloads: Linux
// services (60%), Windows services pinned to a build and tolerating the
// taint (20%), Linux pods spread over zones (10%) and pods restricted to
// two zones by node affinity (10%). Every pod fits somewhere.
func benchTemplates(workloads int) []corev1.PodTemplateSpec {
	out := make([]corev1.PodTemplateSpec, workloads)
	for i := range out {
		name := fmt.Sprintf("w%d", i)
		t := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}}}
		c := corev1.Container{Name: "app", Image: "nginx:1.27", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(100+50*(i%4)), resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(int64(128+128*(i%3))<<20, resource.BinarySI),
		}}}
		spec := &t.Spec
		spec.NodeSelector = map[string]string{corev1.LabelOSStable: "linux"}
		switch i % 10 {
		case 6, 7:
			c.Image = "mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022"
			spec.NodeSelector = map[string]string{corev1.LabelOSStable: "windows", cluster.LabelWindowsBuild: "10.0.20348"}
			if i%10 == 7 {
				c.Image = "mcr.microsoft.com/windows/nanoserver:ltsc2025"
				spec.NodeSelector[cluster.LabelWindowsBuild] = "10.0.26100"
			}
			spec.Tolerations = []corev1.Toleration{{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows", Effect: corev1.TaintEffectNoSchedule}}
		case 8:
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: cluster.LabelZone,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: t.Labels}}}
		case 9:
			spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: cluster.LabelZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"z1", "z2"}}}}}}}}
		}
		spec.Containers = []corev1.Container{c}
		out[i] = t
	}
	return out
}

// benchInput is a simulation of workloads Deployments of replicas pods
// each on nodes nodes, loaded through the manifest package.
func benchInput(b *testing.B, nodes, workloads, replicas int) Input {
	b.Helper()
	var docs bytes.Buffer
	for i, t := range benchTemplates(workloads) {
		d := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": fmt.Sprintf("w%d", i), "namespace": "bench"},
			"spec":     map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": t.Labels}, "template": t}}
		y, err := yaml.Marshal(d)
		if err != nil {
			b.Fatal(err)
		}
		docs.WriteString("---\n")
		docs.Write(y)
	}
	var objs []*manifest.Object
	s := manifest.NewSplitter("bench.yaml", &docs, false)
	for {
		doc, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		o, errs := manifest.Decode(doc)
		if len(errs) > 0 {
			b.Fatal(errs[0])
		}
		objs = append(objs, o...)
	}
	ns, pools := benchCluster(nodes).Nodes()
	return Input{Nodes: ns, Pools: pools, Objects: objs, Model: winsupport.Default()}
}

// BenchmarkSimulate places 100,000 pods on 5,000 nodes.
func BenchmarkSimulate(b *testing.B) { benchSimulate(b, 5000, 200, 500) }

// BenchmarkSimulateSmall is the real scheduler benchmark's size, for a
// like-for-like rate.
func BenchmarkSimulateSmall(b *testing.B) { benchSimulate(b, 500, 100, 50) }

func benchSimulate(b *testing.B, nodes, workloads, replicas int) {
	in := benchInput(b, nodes, workloads, replicas)
	peak := watchPeakHeap()
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Run(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	if c := res.Count(); c.Pods != workloads*replicas || c.Scheduled != c.Pods {
		b.Fatalf("simulated %+v, want all %d pods scheduled", c, workloads*replicas)
	}
	perRun := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(workloads*replicas)/perRun, "pods/s")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
}

// watchPeakHeap samples the heap until the returned function is called,
// which returns the largest sample in bytes.
func watchPeakHeap() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

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
	ns, _ := benchCluster(nodes).Nodes()
	if err := inParallel(16, len(ns), func(i int) error { _, err := cp.CreateNode(ctx, ns[i]); return err }); err != nil {
		b.Fatal(err)
	}
	if err := cp.CreateNamespace(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	var pods []*corev1.Pod
	for i, t := range benchTemplates(workloads) {
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
