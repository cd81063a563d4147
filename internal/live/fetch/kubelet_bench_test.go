package fetch

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/internal/live/fetch/kubelettest"
)

// BenchmarkReadKubelets200 reads /configz and /stats/summary of 200
// Windows nodes (the 2,000-node cluster has 200) from fake
// kubelets that answer after 20 ms, as audit --node-reads=direct does,
// and reports the most requests seen in flight.
func BenchmarkReadKubelets200(b *testing.B) {
	ca, err := kubelettest.NewCA()
	if err != nil {
		b.Fatal(err)
	}
	flight := &kubelettest.Flight{}
	specs := map[string]*kubelettest.Node{}
	configz, stats := testdata(b, "configz.json"), testdata(b, "stats-summary.json")
	for i := range 200 {
		specs[fmt.Sprintf("win-%03d", i)] = &kubelettest.Node{Configz: configz, Stats: stats, Delay: 20 * time.Millisecond}
	}
	nodes := serve(b, ca, flight, specs)
	cfg := &rest.Config{Host: "https://unused.invalid", BearerToken: "token", TLSClientConfig: rest.TLSClientConfig{CAData: ca.PEM}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		got, _, err := ReadKubelets(b.Context(), cfg, nodes, KubeletOptions{Path: PathDirect, Configz: true, Stats: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range got {
			if len(k.Unread) > 0 || k.Config == nil || k.Stats == nil {
				b.Fatalf("%s: %+v", k.Node, k.Unread)
			}
		}
	}
	b.ReportMetric(float64(flight.Max()), "max-in-flight")
}
