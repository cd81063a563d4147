package manifest

import (
	"bytes"
	"io"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"k8s.io/client-go/kubernetes/scheme"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/winkube/winkube/test/corpusgen"
)

// The benchmarks split, parse and decode the generated 10,000-object
// corpus (26 MB), or the file named by WINKUBE_BENCH_CORPUS (what
// hack/bench-lint.sh passes), to compare winkube's loader with the bare
// yaml.v3 node parse and the typed decode kube-score and kubectl use.
// Each reports objects/s; MB/s is the corpus size over the time.

var benchData = sync.OnceValue(func() []byte {
	if p := os.Getenv("WINKUBE_BENCH_CORPUS"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			panic(err)
		}
		return b
	}
	var buf bytes.Buffer
	if _, err := corpusgen.WriteStream(&buf, corpusgen.Options{Objects: 10_000, Seed: 1}); err != nil {
		panic(err)
	}
	return buf.Bytes()
})

func benchDocs(b *testing.B) []Document {
	b.Helper()
	var docs []Document
	s := NewSplitter("corpus.yaml", bytes.NewReader(benchData()), false)
	for {
		d, err := s.Next()
		if err == io.EOF {
			return docs
		}
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d)
	}
}

// cpuTime is the CPU time the process has used, all threads: on a
// shared machine it measures the work better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bench runs fn over every document per iteration, and reports objects
// per second and CPU microseconds per object.
func bench(b *testing.B, fn func(b *testing.B, d Document)) {
	docs := benchDocs(b)
	b.SetBytes(int64(len(benchData())))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		for _, d := range docs {
			fn(b, d)
		}
	}
	n := float64(len(docs) * b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/n, "cpu-µs/object")
}

// BenchmarkSplit is document splitting alone.
func BenchmarkSplit(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	cpu := cpuTime()
	for b.Loop() {
		s := NewSplitter("corpus.yaml", bytes.NewReader(data), false)
		for {
			if _, err := s.Next(); err != nil {
				break
			}
			n++
		}
		s.release()
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(n), "cpu-µs/object")
}

// BenchmarkYAMLv3Node is the bare yaml.v3 parse into a yaml.Node tree.
func BenchmarkYAMLv3Node(b *testing.B) {
	bench(b, func(b *testing.B, d Document) {
		var n yaml.Node
		if err := yaml.Unmarshal(d.Data, &n); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkParseSlow is winkube's yaml.v3 path: the parse and the
// conversion to Nodes.
func BenchmarkParseSlow(b *testing.B) {
	bench(b, func(b *testing.B, d Document) {
		if _, err := parseSlow(d.File, d.Line, d.Data); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkParseFast is the fast parser.
func BenchmarkParseFast(b *testing.B) {
	bench(b, func(b *testing.B, d Document) {
		if _, ok := parseFast(d.Line, d.Data); !ok {
			b.Fatalf("declined:\n%s", d.Data)
		}
	})
}

// BenchmarkDecode is winkube's whole loader: parse, placeholders and the
// typed decode.
func BenchmarkDecode(b *testing.B) {
	bench(b, func(b *testing.B, d Document) { Decode(d) })
}

// BenchmarkTypedScheme is the typed decode kube-score and kubectl do:
// sigs.k8s.io/yaml to JSON, then client-go's scheme into the API structs.
func BenchmarkTypedScheme(b *testing.B) {
	dec := scheme.Codecs.UniversalDeserializer()
	bench(b, func(b *testing.B, d Document) {
		if _, _, err := dec.Decode(d.Data, nil, nil); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSigsYAMLToJSON is the YAML-to-JSON step of the typed decode.
func BenchmarkSigsYAMLToJSON(b *testing.B) {
	bench(b, func(b *testing.B, d Document) {
		if _, err := sigsyaml.YAMLToJSON(d.Data); err != nil {
			b.Fatal(err)
		}
	})
}
