package cluster

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad: no cluster file panics the loader, and whatever it accepts
// stays within MaxNodes, so the simulator never materialises more.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: winkube.io/v1alpha1\nkind: Cluster\npools:\n- {name: a, count: 100000000, os: linux, cpu: \"1\", memory: 1Gi}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "cluster.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(p)
		if err != nil {
			return
		}
		total := 0
		for _, pool := range c.Pools {
			if pool.Count < 0 {
				t.Fatalf("pool %q accepted with count %d", pool.Name, pool.Count)
			}
			total += pool.Count
		}
		if total > MaxNodes {
			t.Fatalf("accepted %d nodes, over MaxNodes", total)
		}
	})
}
