package manifest

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// A plan is what the decoder needs to know about a Go type, worked out
// once per type: reflection's Implements and struct field lookups are too
// slow to repeat for every value of every object.
type plan struct {
	t           reflect.Type
	unmarshaler bool // *t implements json.Unmarshaler

	once   sync.Once
	elem   *plan                // of a pointer, slice or map
	fields map[string]fieldPlan // of a struct, by JSON name
}

// fieldPlan is a struct field: its index path through inline structs, and
// its type's plan.
type fieldPlan struct {
	index []int
	plan  *plan
}

var (
	plans           sync.Map // reflect.Type -> *plan
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// planOf returns t's plan. Its element and fields are filled in on first
// use, so recursive types are fine.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p, _ := plans.LoadOrStore(t, &plan{t: t, unmarshaler: reflect.PointerTo(t).Implements(unmarshalerType)})
	return p.(*plan)
}

func (p *plan) elemPlan() *plan {
	p.once.Do(p.build)
	return p.elem
}

func (p *plan) fieldMap() map[string]fieldPlan {
	p.once.Do(p.build)
	return p.fields
}

func (p *plan) build() {
	switch p.t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		p.elem = planOf(p.t.Elem())
	case reflect.Struct:
		p.fields = map[string]fieldPlan{}
		collectFields(p.t, nil, p.fields)
	}
}

// collectFields maps JSON names to fields, following encoding/json's
// rules for inline (embedded, untagged or ",inline") structs.
func collectFields(t reflect.Type, prefix []int, m map[string]fieldPlan) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		idx := append(append([]int(nil), prefix...), i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) && ft.Kind() == reflect.Struct {
			collectFields(ft, idx, m)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := m[name]; !dup {
			m[name] = fieldPlan{index: idx, plan: planOf(f.Type)}
		}
	}
}

// fieldByIndex walks embedded structs, allocating embedded pointers.
func fieldByIndex(v reflect.Value, idx []int) reflect.Value {
	for i, x := range idx {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
