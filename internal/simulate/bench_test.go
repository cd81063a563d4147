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

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/bench"
)

// The benchmarks run winkube's simulator on test/bench's hybrid cluster and
// workload mix; test/bench's BenchmarkRealScheduler has the real
// kube-scheduler place the same mix, and hack/bench-simulate.sh prints both
// rates and their ratio (docs/performance.md).

// benchInput is a simulation of workloads Deployments of replicas pods
// each on nodes nodes, loaded through the manifest package.
func benchInput(b *testing.B, nodes, workloads, replicas int) Input {
	b.Helper()
	var docs bytes.Buffer
	for i, t := range bench.Templates(workloads) {
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
	ns, pools := bench.Cluster(nodes).Nodes()
	return Input{Nodes: ns, Pools: pools, Objects: objs, Model: winsupport.Default()}
}

// BenchmarkSimulate places 100,000 pods on 5,000 nodes.
func BenchmarkSimulate(b *testing.B) { benchSimulate(b, 5000, 200, 500) }

// BenchmarkSimulateFullScoring places the same 100,000 pods on 5,000
// nodes with every score plugin and the scheduler's node sampling.
func BenchmarkSimulateFullScoring(b *testing.B) { benchSimulateWith(b, 5000, 200, 500, true) }

// BenchmarkSimulateUnder100 places 5,000 pods on 90 nodes, where every
// pod is scored with every plugin as the scheduler does.
func BenchmarkSimulateUnder100(b *testing.B) { benchSimulate(b, 90, 100, 50) }

// BenchmarkSimulateSmall is the real scheduler benchmark's size, for a
// like-for-like rate.
func BenchmarkSimulateSmall(b *testing.B) { benchSimulate(b, 500, 100, 50) }

// BenchmarkSimulateSeeded places 25,000 pods on 500 nodes with full
// scoring and a seed, where the scheduler samples nodes and a seed draws
// its parallel filters' race (racedOrder); with parallelism 1 the nodes
// are visited in order, the cost without the race.
func BenchmarkSimulateSeeded(b *testing.B) {
	for _, parallelism := range []int32{0, 1} {
		b.Run(fmt.Sprintf("parallelism=%d", parallelism), func(b *testing.B) {
			in := benchInput(b, 500, 100, 250)
			in.FullScoring = true
			seed := int64(1)
			in.Seed = &seed
			prof := DefaultProfile()
			prof.Parallelism = parallelism
			in.Profile = prof
			for b.Loop() {
				if _, err := Run(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(100*250)/(b.Elapsed().Seconds()/float64(b.N)), "pods/s")
		})
	}
}

func benchSimulate(b *testing.B, nodes, workloads, replicas int) {
	benchSimulateWith(b, nodes, workloads, replicas, false)
}

func benchSimulateWith(b *testing.B, nodes, workloads, replicas int, full bool) {
	in := benchInput(b, nodes, workloads, replicas)
	in.FullScoring = full
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
