package engine_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
	"github.com/winkube/winkube/test/corpusgen"
)

// benchCorpus writes a generated corpus of n objects as one file (the
// folder of WINKUBE_BENCH_CORPUS when set, for hack/bench-lint.sh).
func benchCorpus(b *testing.B, n int, files bool) string {
	return benchCorpusOf(b, corpusgen.Options{Objects: n, Seed: 1}, files)
}

func benchCorpusOf(b *testing.B, opts corpusgen.Options, files bool) string {
	b.Helper()
	if p := os.Getenv("WINKUBE_BENCH_CORPUS"); p != "" {
		return p
	}
	dir := b.TempDir()
	if files {
		if _, err := corpusgen.WriteFiles(dir, opts); err != nil {
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
	if _, err := corpusgen.WriteStream(f, opts); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchLint(b *testing.B, n int, files bool) {
	benchLintOn(b, n, files, cluster.Reference())
}

func benchLintOn(b *testing.B, n int, files bool, c *cluster.Cluster) {
	path := benchCorpus(b, n, files)
	opts := engine.Options{Rules: rules.Suite(), Cluster: c, Model: winsupport.Default()}
	var objects int
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		objects += lintOnce(b, path, opts).Objects
	}
	b.ReportMetric(float64(objects)/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(objects), "cpu-µs/object")
}

// lintOnce reads path and runs the engine over it, as winkube lint does.
func lintOnce(b *testing.B, path string, opts engine.Options) *engine.Result {
	ins, errs := manifest.Inputs([]string{path}, nil)
	if len(errs) > 0 {
		b.Fatal(errs[0])
	}
	res, err := engine.Run(context.Background(), ins, opts)
	if err != nil {
		b.Fatal(err)
	}
	return res
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

// BenchmarkLint10kAssumed is BenchmarkLint10k with no cluster profile, as
// winkube lint runs by default: every Windows workload's toleration finding
// waits for the input's evidence (rule.Pass.Later) until the end.
func BenchmarkLint10kAssumed(b *testing.B) { benchLintOn(b, 10_000, false, cluster.Assumed()) }

// BenchmarkLint10kFiles is the same corpus as one file per application.
func BenchmarkLint10kFiles(b *testing.B) { benchLint(b, 10_000, true) }

// BenchmarkLint50k is the 50,000-object corpus.
func BenchmarkLint50k(b *testing.B) { benchLint(b, 50_000, false) }

// BenchmarkPhases splits lint's CPU per object on the dense corpus (about
// one finding per object) into loading (the engine with no rules), the
// rules (the whole suite, less loading) and rendering (the text report of
// the findings, less the rest). hack/bench-lint.sh prints the split.
func BenchmarkPhases(b *testing.B) {
	path := benchCorpusOf(b, corpusgen.Options{Objects: 10_000, Seed: 1, Dense: true}, true)
	for _, phase := range []struct {
		name   string
		rules  []*rule.Rule
		render bool
	}{
		{"load", nil, false},
		{"load+rules", rules.Suite(), false},
		{"load+rules+render", rules.Suite(), true},
	} {
		b.Run(phase.name, func(b *testing.B) {
			opts := engine.Options{Rules: phase.rules, Cluster: cluster.Reference(), Model: winsupport.Default()}
			var objects, findings int
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				res := lintOnce(b, path, opts)
				objects += res.Objects
				findings += len(res.Findings)
				if phase.render {
					rep := &report.Report{Findings: res.Findings, Rules: phase.rules, Files: res.Files, Objects: res.Objects}
					if err := report.Text(io.Discard, rep, report.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(objects), "cpu-µs/object")
			b.ReportMetric(float64(findings)/float64(objects), "findings/object")
		})
	}
}
