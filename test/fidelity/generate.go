package fidelity

import (
	"fmt"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
)

// Namespace holds every generated pod.
const Namespace = "fidelity"

// Case is one scenario: a small cluster, the RuntimeClasses that exist in
// it, and pods created one after another in order.
type Case struct {
	Seed  uint64 // the run's seed
	Index int    // the case's number in the run; Seed and Index regenerate it
	// Source is the fixture file a replayed case was read from, "" for a
	// generated case.
	Source string

	Nodes          []*corev1.Node
	RuntimeClasses []*nodev1.RuntimeClass
	Pods           []*corev1.Pod
}

// documents lists the case's objects in the order they are created: nodes
// (when asked), RuntimeClasses, pods.
func (cs *Case) documents(nodes bool) []any {
	var docs []any
	if nodes {
		for _, n := range cs.Nodes {
			docs = append(docs, n)
		}
	}
	for _, rc := range cs.RuntimeClasses {
		docs = append(docs, rc)
	}
	for _, p := range cs.Pods {
		docs = append(docs, p)
	}
	return docs
}

// Name identifies the case in messages and fixture file names.
func (c *Case) Name() string { return fmt.Sprintf("seed-%d-case-%d", c.Seed, c.Index) }

// Generate returns the first n cases of the run seed.
func Generate(seed uint64, n int) []*Case {
	cases := make([]*Case, n)
	for i := range cases {
		cases[i] = NewCase(seed, i)
	}
	return cases
}

// NewCase generates case index of the run seed. Each case draws from its
// own random stream, so one case can be regenerated without the others.
// Node and RuntimeClass names carry the index, so no two cases of a run
// share a name.
func NewCase(seed uint64, index int) *Case {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(index))), prefix: fmt.Sprintf("c%d", index)}
	c := &Case{Seed: seed, Index: index}
	c.Nodes = g.nodes()
	c.RuntimeClasses = g.runtimeClasses()
	c.Pods = g.pods(c.Nodes, c.RuntimeClasses)
	return c
}

// gen draws the parts of one case.
type gen struct {
	r      *rand.Rand
	prefix string // c<index>, prepended to cluster-scoped names
}

// chance is true with probability p.
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// pick returns one of xs uniformly.
func pick[T any](g *gen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

// weighted returns the index of a weight, drawn in proportion to it.
func (g *gen) weighted(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := g.r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}
