package manifest

import (
	"reflect"
	"slices"
	"strings"
	"sync"
)

// servedTyped are the API versions whose Go types winkube decodes into;
// strict field checking is only exact for them (extensions/v1beta1 is
// decoded into apps/v1 types, and is not served anyway).
var servedTyped = map[string]bool{"v1": true, "apps/v1": true, "batch/v1": true, "node.k8s.io/v1": true, "storage.k8s.io/v1": true}

// UnknownField is a field of an object that its kind's schema does not
// have: kubectl's default strict field validation rejects the object.
type UnknownField struct {
	Path string // spec.template.spec.containers[0].imagePullpolicy
	Hint string // did you mean "imagePullPolicy"?
	Line int
}

// UnknownFields returns the fields of o that its kind does not have, for
// the kinds winkube decodes. Unknown fields are dropped by the loader, as
// the API server's non-strict decoding does; kubectl apply validates
// strictly by default and refuses them.
func UnknownFields(o *Object) []UnknownField {
	m := o.unknown
	if m == nil {
		return unknownFields(o)
	}
	// The tree is never changed once parsed; a copy of the object that
	// carries another tree is answered afresh.
	m.once.Do(func() { m.root, m.out = o.Root, unknownFields(o) })
	if m.root != o.Root {
		return unknownFields(o)
	}
	return slices.Clone(m.out)
}

// unknownMemo is UnknownFields of the tree root, computed once.
type unknownMemo struct {
	once sync.Once
	root *Node
	out  []UnknownField
}

func unknownFields(o *Object) []UnknownField {
	newObj, ok := typedKinds[groupKind{o.Group(), o.Kind}]
	if !ok || o.Root == nil || !servedTyped[o.APIVersion] {
		return nil
	}
	d := decoder{file: o.File, strict: true}
	rv := reflect.ValueOf(newObj()).Elem()
	d.value(o.Root, rv, planOf(rv.Type()))
	var out []UnknownField
	for _, e := range d.errs {
		at, name, ok := strings.Cut(e.Msg, "unknown field \"")
		if !ok {
			continue // a type error: the loader reports it
		}
		path := strings.TrimSuffix(strings.TrimSuffix(at, ": "), ":")
		name = strings.TrimSuffix(name, "\"")
		if path != "" {
			name = path + "." + name
		}
		out = append(out, UnknownField{Path: name, Hint: e.Hint, Line: e.Line})
	}
	return out
}
