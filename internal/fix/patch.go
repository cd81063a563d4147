package fix

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/winkube/winkube/internal/rule"
)

// PatchOp is one RFC 6902 JSON patch operation.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Patch turns edits, typically one fix's, into a JSON patch against obj,
// the object as decoded from JSON (map[string]any), all or nothing: obj
// is updated as each edit is applied, so later edits see earlier ones, and
// when an edit fails the earlier ones are undone and obj is as it was.
// Edits that change nothing produce no op.
func Patch(obj map[string]any, edits []rule.Edit) ([]PatchOp, error) {
	var ops []PatchOp
	var j journal
	for _, e := range edits {
		op, err := patchEdit(obj, e, false, &j)
		if err != nil {
			j.undo()
			return nil, fmt.Errorf("%s %s: %w", e.Op, e.Path, err)
		}
		if op != nil {
			ops = append(ops, *op)
		}
	}
	return ops, nil
}

// journal records the map entries an edit changed, to undo them.
type journal []func()

func (j *journal) set(m map[string]any, k string, v any) {
	old, had := m[k]
	*j = append(*j, func() {
		if had {
			m[k] = old
		} else {
			delete(m, k)
		}
	})
	m[k] = v
}

func (j *journal) del(m map[string]any, k string) {
	old := m[k]
	*j = append(*j, func() { m[k] = old })
	delete(m, k)
}

func (j journal) undo() {
	for i := len(j) - 1; i >= 0; i-- {
		j[i]()
	}
}

// patchOne applies one edit to obj; prune removes the mappings a removal
// leaves empty, up to the object's top-level fields, as the text edit does.
func patchOne(obj map[string]any, e rule.Edit, prune bool) (*PatchOp, error) {
	var j journal
	op, err := patchEdit(obj, e, prune, &j)
	if err != nil {
		j.undo()
	}
	return op, err
}

func patchEdit(obj map[string]any, e rule.Edit, prune bool, j *journal) (*PatchOp, error) {
	segs := parsePath(e.Path)
	if len(segs) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	var cur any = obj
	ptr := ""
	chain := []any{obj} // the value at segs[:i]
	ptrs := []string{""}
	for i, s := range segs {
		last := i == len(segs)-1
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[s.Name]
			p := ptr + "/" + escape(s.Name)
			if !ok || next == nil {
				return missing(c, s.Name, p, segs[i+1:], e, j)
			}
			if last {
				if e.Op == rule.Remove && prune {
					return pruneRemove(chain, ptrs, segs, j), nil
				}
				return atLeaf(c, s.Name, p, next, e, j)
			}
			cur, ptr = next, p
		case []any:
			idx, ok := s.Index()
			if !ok || idx >= len(c) {
				if e.Op == rule.Remove {
					return nil, nil
				}
				return nil, fmt.Errorf("list index %q out of range", s.Name)
			}
			if last {
				if e.Op == rule.Remove {
					return nil, fmt.Errorf("removing list items is not supported")
				}
				if e.Op != rule.Set {
					return nil, fmt.Errorf("cannot set a list item")
				}
				return setItem(c, idx, ptr+"/"+s.Name, e.Value, j), nil
			}
			cur, ptr = c[idx], ptr+"/"+s.Name
		default:
			return nil, fmt.Errorf("%s is not an object", ptr)
		}
		chain, ptrs = append(chain, cur), append(ptrs, ptr)
	}
	return nil, nil
}

// pruneRemove removes the last step of segs, and the mappings above it
// that the removal leaves empty, short of the object's top level.
func pruneRemove(chain []any, ptrs []string, segs []segment, j *journal) *PatchOp {
	i := len(segs)
	for i > 1 {
		_, keyed := chain[i-2].(map[string]any)
		m, isMap := chain[i-1].(map[string]any)
		if !keyed || !isMap || len(m) != 1 {
			break
		}
		i--
	}
	parent := chain[i-1].(map[string]any)
	j.del(parent, segs[i-1].Name)
	return &PatchOp{Op: "remove", Path: ptrs[i-1] + "/" + escape(segs[i-1].Name)}
}

// missing handles a path whose step name is absent from m: Set and Append
// create what is missing.
func missing(m map[string]any, name, ptr string, rest []segment, e rule.Edit, j *journal) (*PatchOp, error) {
	v := e.Value
	switch e.Op {
	case rule.Remove:
		return nil, nil
	case rule.Append:
		v = []any{e.Value}
	}
	for i := len(rest) - 1; i >= 0; i-- {
		if _, isIndex := rest[i].Index(); isIndex {
			return nil, fmt.Errorf("%s: cannot create list item %s", ptr, rest[i].Name)
		}
		v = map[string]any{rest[i].Name: v}
	}
	j.set(m, name, v)
	return &PatchOp{Op: "add", Path: ptr, Value: v}, nil
}

// atLeaf handles the last step when it exists.
func atLeaf(m map[string]any, name, ptr string, cur any, e rule.Edit, j *journal) (*PatchOp, error) {
	switch e.Op {
	case rule.Remove:
		j.del(m, name)
		return &PatchOp{Op: "remove", Path: ptr}, nil
	case rule.Append:
		list, ok := cur.([]any)
		if !ok {
			return nil, fmt.Errorf("%s is not a list", ptr)
		}
		for _, x := range list {
			if reflect.DeepEqual(normalize(jsonNumbers(x)), normalize(e.Value)) {
				return nil, nil
			}
		}
		j.set(m, name, append(list[:len(list):len(list)], e.Value))
		return &PatchOp{Op: "add", Path: ptr + "/-", Value: e.Value}, nil
	}
	if reflect.DeepEqual(normalize(jsonNumbers(cur)), normalize(e.Value)) {
		return nil, nil
	}
	j.set(m, name, e.Value)
	return &PatchOp{Op: "replace", Path: ptr, Value: e.Value}, nil
}

// setItem replaces a list item (a string in args, say) in place.
func setItem(list []any, idx int, ptr string, v any, j *journal) *PatchOp {
	if reflect.DeepEqual(normalize(jsonNumbers(list[idx])), normalize(v)) {
		return nil
	}
	old := list[idx]
	*j = append(*j, func() { list[idx] = old })
	list[idx] = v
	return &PatchOp{Op: "replace", Path: ptr, Value: v}
}

// jsonNumbers turns float64 integers from encoding/json into int64.
func jsonNumbers(v any) any {
	return mapScalars(v, func(s any) any {
		if x, ok := s.(float64); ok && x == float64(int64(x)) {
			return int64(x)
		}
		return s
	})
}

// escape writes a JSON pointer token (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
