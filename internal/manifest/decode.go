package manifest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// decodeInto decodes n into the value v points to, the way the API server's
// JSON decoding would treat the same document, but straight from the node
// tree and with the position of any mismatch.
func decodeInto(file string, n *Node, v any) *Error {
	d := decoder{file: file}
	d.value(n, reflect.ValueOf(v).Elem(), "")
	return d.err
}

type decoder struct {
	file   string
	err    *Error
	strict bool     // unknown fields are errors; keep going after errors
	errs   []*Error // every error, in strict mode
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

func (d *decoder) fail(n *Node, path, format string, args ...any) {
	d.failHint(n, path, "fix the value's type; quote numbers and booleans that are meant as strings", format, args...)
}

func (d *decoder) failHint(n *Node, path, hint, format string, args ...any) {
	e := &Error{File: d.file, Line: n.Line, Column: n.Column,
		Msg: fmt.Sprintf("%s: %s", strings.TrimPrefix(path, "."), fmt.Sprintf(format, args...)), Hint: hint}
	if d.strict {
		d.errs = append(d.errs, e)
		return
	}
	if d.err == nil {
		d.err = e
	}
}

func (d *decoder) value(n *Node, v reflect.Value, path string) {
	if d.err != nil && !d.strict {
		return
	}
	if n.IsNull() {
		return // JSON null leaves the zero value, as encoding/json does
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(n.AppendJSON(nil)); err != nil {
			d.fail(n, path, "%v", err)
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(n, v.Elem(), path)
	case reflect.Struct:
		d.object(n, v, path)
	case reflect.Map:
		if n.Kind != MappingNode {
			d.fail(n, path, "expected a mapping, got %s", describe(n))
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
		}
		et := v.Type().Elem()
		for i := 0; i+1 < len(n.Content); i += 2 {
			e := reflect.New(et).Elem()
			d.value(n.Content[i+1], e, path+"["+n.Content[i].Value+"]")
			v.SetMapIndex(reflect.ValueOf(n.Content[i].Value).Convert(v.Type().Key()), e)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			d.bytes(n, v, path)
			return
		}
		if n.Kind != SequenceNode {
			d.fail(n, path, "expected a list, got %s", describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, c := range n.Content {
			d.value(c, s.Index(i), path+"["+strconv.Itoa(i)+"]")
		}
		v.Set(s)
	case reflect.Interface:
		var x any
		if err := json.Unmarshal(n.AppendJSON(nil), &x); err != nil {
			d.fail(n, path, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(x))
	default:
		d.scalar(n, v, path)
	}
}

func (d *decoder) bytes(n *Node, v reflect.Value, path string) {
	if n.Kind != ScalarNode || n.Tag != TagStr {
		d.fail(n, path, "expected a base64 string, got %s", describe(n))
		return
	}
	b, err := base64.StdEncoding.DecodeString(n.Value)
	if err != nil {
		d.fail(n, path, "invalid base64: %v", err)
		return
	}
	v.SetBytes(b)
}

func (d *decoder) scalar(n *Node, v reflect.Value, path string) {
	if n.Kind != ScalarNode {
		d.fail(n, path, "expected %s, got %s", v.Kind(), describe(n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		if n.Tag != TagStr {
			d.fail(n, path, "expected a string, got %s %s", describe(n), n.Value)
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Tag != TagBool {
			d.fail(n, path, "expected a boolean, got %s %q", describe(n), n.Value)
			return
		}
		v.SetBool(strings.EqualFold(n.Value, "true"))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := n.int()
		if !ok || v.OverflowInt(i) {
			d.fail(n, path, "expected an integer, got %s %q", describe(n), n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		i, ok := n.int()
		if !ok || i < 0 || v.OverflowUint(uint64(i)) {
			d.fail(n, path, "expected a non-negative integer, got %s %q", describe(n), n.Value)
			return
		}
		v.SetUint(uint64(i))
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if (n.Tag != TagInt && n.Tag != TagFloat) || err != nil {
			d.fail(n, path, "expected a number, got %s %q", describe(n), n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.fail(n, path, "cannot decode into %s", v.Type())
	}
}

func (n *Node) int() (int64, bool) {
	switch n.Tag {
	case TagInt:
		i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		return i, err == nil
	case TagFloat: // JSON numbers like 3.0 decode into ints
		f, err := strconv.ParseFloat(n.Value, 64)
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), true
		}
	}
	return 0, false
}

func describe(n *Node) string {
	switch n.Kind {
	case MappingNode:
		return "a mapping"
	case SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case TagInt, TagFloat:
		return "number"
	case TagBool:
		return "boolean"
	}
	return "string"
}

func (d *decoder) object(n *Node, v reflect.Value, path string) {
	if n.Kind != MappingNode {
		d.fail(n, path, "expected a mapping, got %s", describe(n))
		return
	}
	fields := fieldsOf(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		idx, ok := fields[name]
		if !ok {
			if d.strict {
				d.failHint(n.Content[i], path, didYouMean(name, fields), "unknown field %q", name)
			}
			continue // unknown fields are dropped, as the API server's default decoding does
		}
		d.value(n.Content[i+1], fieldByIndex(v, idx), path+"."+name)
		if d.err != nil {
			return
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

var fieldCache sync.Map // reflect.Type -> map[string][]int

// fieldsOf maps JSON names to field index paths, following encoding/json's
// rules for inline (embedded, untagged or ",inline") structs.
func fieldsOf(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	collectFields(t, nil, m)
	fieldCache.Store(t, m)
	return m
}

func collectFields(t reflect.Type, prefix []int, m map[string][]int) {
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
			m[name] = idx
		}
	}
}
