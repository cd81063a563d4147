package corpusgen

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Doc is one generated object's YAML document (no "---").
type Doc struct {
	Kind    string
	Name    string
	Windows bool // a workload bound to Windows nodes
	Data    []byte
}

// Stats describes a generated corpus.
type Stats struct {
	Objects   int
	Files     int
	Bytes     int64
	Kinds     map[string]int
	Windows   int // Windows workloads
	Workloads int
}

func (s *Stats) add(d Doc) {
	if s.Kinds == nil {
		s.Kinds = map[string]int{}
	}
	s.Objects++
	s.Bytes += int64(len(d.Data))
	s.Kinds[d.Kind]++
	switch d.Kind {
	case "Deployment", "DaemonSet", "StatefulSet":
		s.Workloads++
		if d.Windows {
			s.Windows++
		}
	}
}

// Options describe a corpus.
type Options struct {
	Objects int    // how many objects; also sizes the set of RuntimeClasses
	Seed    uint64 // the same seed gives the same corpus
	// Unreadable adds the mistakes that stop a document from loading (an
	// unfilled <image-name>, replicas: "2"), in about 3 of 1,000
	// workloads. kube-score gives up on the whole input at the first one,
	// so the benchmarks leave them out.
	Unreadable bool
}

// Generator produces the objects of a corpus.
type Generator struct {
	opts    Options
	rng     *rand.Rand
	app     int      // apps generated so far
	rcs     []string // RuntimeClass names, all Windows
	pending []Doc    // the rest of the current app
}

// New returns a generator; there is one RuntimeClass per 200 objects, at
// least three.
func New(o Options) *Generator {
	g := &Generator{opts: o, rng: rand.New(rand.NewPCG(o.Seed, 0x5eed))}
	for i := range max(3, o.Objects/200) {
		g.rcs = append(g.rcs, fmt.Sprintf("windows-%s-%d", pick(g.rng, []string{"2022", "2019", "2025"}), i))
	}
	return g
}

// RuntimeClasses returns the corpus's RuntimeClass objects. Windows
// workloads name them, so they come first in a stream.
func (g *Generator) RuntimeClasses() []Doc {
	docs := make([]Doc, len(g.rcs))
	for i, name := range g.rcs {
		docs[i] = Doc{Kind: "RuntimeClass", Name: name, Data: runtimeClass(name)}
	}
	return docs
}

// App returns the objects of the next application: a workload with,
// usually, its ConfigMap and Service.
func (g *Generator) App() []Doc {
	g.app++
	a := newApp(g.rng, g.app, g.rcs, g.opts.Unreadable)
	var docs []Doc
	if a.config {
		docs = append(docs, Doc{Kind: "ConfigMap", Name: a.name, Data: configMap(g.rng, a)})
	}
	docs = append(docs, Doc{Kind: a.kind, Name: a.name, Windows: a.windows, Data: workload(g.rng, a)})
	if a.service {
		docs = append(docs, Doc{Kind: "Service", Name: a.name, Data: service(g.rng, a)})
	}
	return docs
}

// Next returns the next object of the stream (RuntimeClasses, then apps).
func (g *Generator) Next() Doc {
	if g.app == 0 && g.pending == nil {
		g.pending = g.RuntimeClasses()
	}
	if len(g.pending) == 0 {
		g.pending = g.App()
	}
	d := g.pending[0]
	g.pending = g.pending[1:]
	return d
}

// WriteStream writes the corpus to w as one multi-document YAML stream.
func WriteStream(w io.Writer, o Options) (Stats, error) {
	g := New(o)
	st := Stats{Files: 1}
	for i := range o.Objects {
		d := g.Next()
		st.add(d)
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return st, err
			}
		}
		if _, err := w.Write(d.Data); err != nil {
			return st, err
		}
	}
	return st, nil
}

// WriteFiles writes the corpus into dir, one file per application
// (apps/<team>/<name>.yaml) and the RuntimeClasses in one file, the way a
// GitOps repository holds them.
func WriteFiles(dir string, o Options) (Stats, error) {
	g := New(o)
	n := o.Objects
	var st Stats
	write := func(path string, docs []Doc) error {
		var buf bytes.Buffer
		for i, d := range docs {
			if st.Objects == n {
				break
			}
			if i > 0 {
				buf.WriteString("---\n")
			}
			buf.Write(d.Data)
			st.add(d)
		}
		st.Files++
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err := write(filepath.Join(dir, "cluster", "runtimeclasses.yaml"), g.RuntimeClasses()); err != nil {
		return st, err
	}
	for st.Objects < n {
		docs := g.App()
		last := docs[len(docs)-1]
		team := teams[g.app%len(teams)]
		if err := write(filepath.Join(dir, "apps", team, fmt.Sprintf("%s.yaml", last.Name)), docs); err != nil {
			return st, err
		}
	}
	return st, nil
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// chance reports true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }
