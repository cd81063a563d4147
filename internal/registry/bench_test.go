package registry

import (
	"fmt"
	"testing"

	"github.com/winkube/winkube/internal/registry/registrytest"
)

// BenchmarkResolveCold resolves 200 unique references with an empty cache
// per iteration; hack/bench-images.sh measures 1,000 in a process of its own.
func BenchmarkResolveCold(b *testing.B) {
	s, err := registrytest.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	refs := make([]string, 200)
	for i := range refs {
		if _, err := s.PushImage(fmt.Sprintf("bench/app%d:1.0", i), registrytest.Windows("10.0.20348.1"), int64(i)); err != nil {
			b.Fatal(err)
		}
		refs[i] = fmt.Sprintf("%s/bench/app%d:1.0", s.Host, i)
	}
	b.ResetTimer()
	for range b.N {
		r, err := New(Options{CacheDir: b.TempDir(), Insecure: []string{s.Host}})
		if err != nil {
			b.Fatal(err)
		}
		if _, errs := r.ResolveAll(b.Context(), refs); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
