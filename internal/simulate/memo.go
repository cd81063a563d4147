package simulate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// Memo carries what several simulations of the same workloads share, so
// that a caller running them (winkube plan: the current cluster, the
// target, the interim clusters of its migration steps) pays for it once:
// the API server's validation of each workload object, which reads the
// object, the Kubernetes release and the RuntimeClasses but no node and
// no other object (engine.Validate judges each object alone). Runs may
// share a Memo at once.
type Memo struct {
	mu      sync.Mutex
	invalid map[memoKey]*memoEntry
}

// NewMemo returns an empty Memo.
func NewMemo() *Memo { return &Memo{invalid: map[memoKey]*memoEntry{}} }

// memoKey is what validation reads besides the object: the release and
// the RuntimeClasses, by name and identity (a plan's changed class is a
// new value).
type memoKey struct {
	m   winsupport.Model
	rcs string
}

// memoEntry holds the objects validated under one key and the refusals
// of the invalid ones.
type memoEntry struct {
	mu      sync.Mutex
	done    map[*manifest.Object]bool
	refused map[*manifest.Object]string
}

// validate is validate(objs, rcs, m), each object validated once per
// release and set of RuntimeClasses.
func (mm *Memo) validate(objs []*manifest.Object, rcs map[string]*nodev1.RuntimeClass, m winsupport.Model) map[*manifest.Object]string {
	if mm == nil {
		return validate(objs, rcs, m)
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(rcs)) {
		fmt.Fprintf(&b, "%s@%p\x00", name, rcs[name])
	}
	key := memoKey{m: m, rcs: b.String()}
	mm.mu.Lock()
	e := mm.invalid[key]
	if e == nil {
		e = &memoEntry{done: map[*manifest.Object]bool{}, refused: map[*manifest.Object]string{}}
		mm.invalid[key] = e
	}
	mm.mu.Unlock()

	// A run at once with the same key waits for this one rather than
	// validating the same objects again.
	e.mu.Lock()
	defer e.mu.Unlock()
	var todo []*manifest.Object
	for _, o := range objs {
		if !e.done[o] {
			todo = append(todo, o)
		}
	}
	if len(todo) > 0 {
		for o, msg := range validate(todo, rcs, m) {
			e.refused[o] = msg
		}
		for _, o := range todo {
			e.done[o] = true
		}
	}
	out := map[*manifest.Object]string{}
	for _, o := range objs {
		if msg, ok := e.refused[o]; ok {
			out[o] = msg
		}
	}
	return out
}

// validate runs the suite's API-rejection rules through the engine, in
// the API server's order of field errors (engine.Validate), and returns,
// per object, the API server's refusal: `Kind.group "name" is invalid:
// msg` or `... is invalid: [msg1, msg2]`. Only error findings count:
// warnings predict what the API server will say once spec.os.name is set.
func validate(objs []*manifest.Object, rcs map[string]*nodev1.RuntimeClass, m winsupport.Model) map[*manifest.Object]string {
	known := make([]*nodev1.RuntimeClass, 0, len(rcs))
	for _, name := range slices.Sorted(maps.Keys(rcs)) {
		known = append(known, rcs[name])
	}
	found := engine.Validate(objs, engine.Options{Rules: rules.API(), Cluster: cluster.Reference(), Model: m, RuntimeClasses: known})
	out := map[*manifest.Object]string{}
	for i, o := range objs {
		var msgs []string
		for _, f := range found[i] {
			if f.Severity == rule.Error {
				msgs = append(msgs, f.Message)
			}
		}
		if len(msgs) > 0 {
			out[o] = invalid(o, msgs)
		}
	}
	return out
}

// invalid renders field errors as apierrors.NewInvalid does: duplicates
// dropped, one message bare, several in brackets.
func invalid(o *manifest.Object, msgs []string) string {
	var uniq []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			uniq = append(uniq, m)
		}
	}
	gk := schema.GroupKind{Group: o.Group(), Kind: o.Kind}
	agg := uniq[0]
	if len(uniq) > 1 {
		agg = "[" + strings.Join(uniq, ", ") + "]"
	}
	return fmt.Sprintf("%s %q is invalid: %s", gk.String(), o.Name, agg)
}
