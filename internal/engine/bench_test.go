package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/corpusgen"
)

// benchCorpus writes a generated corpus of n objects as one file (the
// folder of WINKUBE_BENCH_CORPUS when set, for hack/bench-lint.sh).
func benchCorpus(b *testing.B, n int, files bool) string {
	b.Helper()
	if p := os.Getenv("WINKUBE_BENCH_CORPUS"); p != "" {
		return p
	}
	dir := b.TempDir()
	if files {
		if _, err := corpusgen.WriteFiles(dir, corpusgen.Options{Objects: n, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		return dir
	}
	path := filepath.Join(dir, "corpus.yaml")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := corpusgen.WriteStream(f, corpusgen.Options{Objects: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchLint(b *testing.B, n int, files bool) {
	path := benchCorpus(b, n, files)
	opts := engine.Options{Rules: rules.Suite(), Cluster: cluster.Reference(), Model: winsupport.Default()}
	var objects int
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		ins, errs := manifest.Inputs([]string{path}, nil)
		if len(errs) > 0 {
			b.Fatal(errs[0])
		}
		res, err := engine.Run(context.Background(), ins, opts)
		if err != nil {
			b.Fatal(err)
		}
		objects += res.Objects
	}
	b.ReportMetric(float64(objects)/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(objects), "cpu-µs/object")
}

// cpuTime is the CPU time the process has used, all threads: on a
// shared machine it measures the work better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLint10k is winkube lint's work on the 26 MB single-file corpus.
func BenchmarkLint10k(b *testing.B) { benchLint(b, 10_000, false) }

// BenchmarkLint10kFiles is the same corpus as one file per application.
func BenchmarkLint10kFiles(b *testing.B) { benchLint(b, 10_000, true) }

// BenchmarkLint50k is the 50,000-object corpus.
func BenchmarkLint50k(b *testing.B) { benchLint(b, 50_000, false) }
