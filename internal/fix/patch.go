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

// Patch turns edits into a JSON patch against obj, the object as decoded
// from JSON (map[string]any). obj is updated as each edit is applied, so
// later edits see earlier ones; edits that change nothing produce no op.
func Patch(obj map[string]any, edits []rule.Edit) ([]PatchOp, error) {
	var ops []PatchOp
	for _, e := range edits {
		op, err := patchOne(obj, e)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", e.Op, e.Path, err)
		}
		if op != nil {
			ops = append(ops, *op)
		}
	}
	return ops, nil
}

func patchOne(obj map[string]any, e rule.Edit) (*PatchOp, error) {
	segs := parsePath(e.Path)
	var cur any = obj
	ptr := ""
	for i, s := range segs {
		last := i == len(segs)-1
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[s.Name]
			p := ptr + "/" + escape(s.Name)
			if !ok || next == nil {
				return missing(c, s.Name, p, segs[i+1:], e)
			}
			if last {
				return atLeaf(c, s.Name, p, next, e)
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
				return nil, fmt.Errorf("cannot set a list item")
			}
			cur, ptr = c[idx], ptr+"/"+s.Name
		default:
			return nil, fmt.Errorf("%s is not an object", ptr)
		}
	}
	return nil, nil
}

// missing handles a path whose step name is absent from m.
func missing(m map[string]any, name, ptr string, rest []segment, e rule.Edit) (*PatchOp, error) {
	switch e.Op {
	case rule.Remove:
		return nil, nil
	case rule.Append:
		if len(rest) > 0 {
			return nil, fmt.Errorf("append needs the list's parent to exist")
		}
		v := []any{e.Value}
		m[name] = v
		return &PatchOp{Op: "add", Path: ptr, Value: v}, nil
	}
	v := e.Value
	for i := len(rest) - 1; i >= 0; i-- {
		v = map[string]any{rest[i].Name: v}
	}
	m[name] = v
	return &PatchOp{Op: "add", Path: ptr, Value: v}, nil
}

// atLeaf handles the last step when it exists.
func atLeaf(m map[string]any, name, ptr string, cur any, e rule.Edit) (*PatchOp, error) {
	switch e.Op {
	case rule.Remove:
		delete(m, name)
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
		m[name] = append(list, e.Value)
		return &PatchOp{Op: "add", Path: ptr + "/-", Value: e.Value}, nil
	}
	if reflect.DeepEqual(normalize(jsonNumbers(cur)), normalize(e.Value)) {
		return nil, nil
	}
	m[name] = e.Value
	return &PatchOp{Op: "replace", Path: ptr, Value: e.Value}, nil
}

// jsonNumbers turns float64 integers from encoding/json into int64.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonNumbers(e)
		}
		return out
	}
	return v
}

// escape writes a JSON pointer token (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
