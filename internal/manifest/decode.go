package manifest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// decodeInto decodes n into the value v points to, the way the API server's
// JSON decoding would treat the same document, but straight from the node
// tree and with the position of any mismatch.
func decodeInto(file string, n *Node, v any) *Error {
	d := decoder{file: file}
	rv := reflect.ValueOf(v).Elem()
	d.value(n, rv, planOf(rv.Type()))
	return d.err
}

type decoder struct {
	file   string
	err    *Error
	strict bool      // unknown fields are errors; keep going after errors
	errs   []*Error  // every error, in strict mode
	path   []pathSeg // where the decoder is, rendered only for errors
	json   []byte    // scratch for json.Unmarshaler values
}

// pathSeg is one step of a field path: a field name, a list index or a
// map key.
type pathSeg struct {
	name  string
	index int // a list index when >= 0
}

func (d *decoder) push(name string, index int) { d.path = append(d.path, pathSeg{name, index}) }
func (d *decoder) pop()                        { d.path = d.path[:len(d.path)-1] }

// pathString renders the path as the API server writes field paths:
// spec.containers[0].resources.limits[memory].
func (d *decoder) pathString() string {
	var b strings.Builder
	for i, s := range d.path {
		switch {
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case s.index == mapKey:
			b.WriteString("[" + s.name + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.name)
		}
	}
	return b.String()
}

const (
	fieldName = -1
	mapKey    = -2
)

func (d *decoder) fail(n *Node, format string, args ...any) {
	d.failHint(n, "fix the value's type; quote numbers and booleans that are meant as strings", format, args...)
}

func (d *decoder) failHint(n *Node, hint, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(d.path) > 0 {
		msg = d.pathString() + ": " + msg
	}
	e := &Error{File: d.file, Line: n.Line, Column: n.Column, Msg: msg, Hint: hint, Class: ErrType}
	if d.strict {
		d.errs = append(d.errs, e)
		return
	}
	if d.err == nil {
		d.err = e
	}
}

// stop reports whether decoding should end: the first error does, except
// in strict mode, which reports them all.
func (d *decoder) stop() bool { return d.err != nil && !d.strict }

// value decodes n into v; pl is v's type's plan.
func (d *decoder) value(n *Node, v reflect.Value, pl *plan) {
	if d.stop() || n.IsNull() {
		return // JSON null leaves the zero value, as encoding/json does
	}
	if pl.unmarshaler {
		if d.common(n, v, pl) {
			return
		}
		d.json = n.AppendJSON(d.json[:0]) // UnmarshalJSON may not keep it
		if err := v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(d.json); err != nil {
			d.fail(n, "%v", err)
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(n, v.Elem(), pl.elemPlan())
	case reflect.Struct:
		d.object(n, v, pl)
	case reflect.Map:
		d.mapping(n, v, pl)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			d.bytes(n, v)
			return
		}
		if n.Kind != SequenceNode {
			d.fail(n, "expected a list, got %s", describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		elem := pl.elemPlan()
		for i, c := range n.Content {
			d.push("", i)
			d.value(c, s.Index(i), elem)
			d.pop()
		}
		v.Set(s)
	case reflect.Interface:
		var x any
		if err := json.Unmarshal(n.AppendJSON(nil), &x); err != nil {
			d.fail(n, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(x))
	default:
		d.scalar(n, v)
	}
}

var (
	stringMap   = reflect.TypeFor[map[string]string]()
	intOrString = reflect.TypeFor[intstr.IntOrString]()
	quantity    = reflect.TypeFor[resource.Quantity]()
)

// common decodes the two json.Unmarshaler types every pod spec is full
// of (ports, resources) without rendering JSON for their UnmarshalJSON;
// the result is the one UnmarshalJSON gives. It reports false to leave
// a value to UnmarshalJSON.
func (d *decoder) common(n *Node, v reflect.Value, pl *plan) bool {
	if n.Kind != ScalarNode {
		return false
	}
	switch {
	case pl.t == intOrString && n.Tag == TagStr:
		*v.Addr().Interface().(*intstr.IntOrString) = intstr.IntOrString{Type: intstr.String, StrVal: n.Value}
		return true
	case pl.t == intOrString && n.Tag == TagInt:
		i, ok := n.int()
		if !ok || i < math.MinInt32 || i > math.MaxInt32 {
			return false
		}
		*v.Addr().Interface().(*intstr.IntOrString) = intstr.IntOrString{Type: intstr.Int, IntVal: int32(i)}
		return true
	case pl.t == quantity && n.Tag == TagStr && !needsEscape(n.Value):
		// UnmarshalJSON strips the quotes without unescaping: the same
		// text unless the value needed escaping.
		q, err := resource.ParseQuantity(strings.TrimSpace(n.Value))
		if err != nil {
			d.fail(n, "%v", err)
		} else {
			*v.Addr().Interface().(*resource.Quantity) = q
		}
		return true
	}
	return false
}

func (d *decoder) mapping(n *Node, v reflect.Value, pl *plan) {
	if n.Kind != MappingNode {
		d.fail(n, "expected a mapping, got %s", describe(n))
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(v.Type(), len(n.Content)/2))
	}
	if v.Type() == stringMap { // labels, annotations, selectors
		// Copies, not substrings of the document: these maps are what
		// callers keep (the engine's workload summaries), and a substring
		// would keep the whole document's text alive.
		m := v.Interface().(map[string]string)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := strings.Clone(n.Content[i].Value)
			if val := n.Content[i+1]; val.Kind == ScalarNode && val.Tag == TagStr {
				m[key] = strings.Clone(val.Value)
				continue
			}
			var s string
			d.push(key, mapKey)
			d.value(n.Content[i+1], reflect.ValueOf(&s).Elem(), pl.elemPlan())
			d.pop()
			m[key] = s
		}
		return
	}
	key, elem := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
	for i := 0; i+1 < len(n.Content); i += 2 {
		elem.SetZero()
		d.push(n.Content[i].Value, mapKey)
		d.value(n.Content[i+1], elem, pl.elemPlan())
		d.pop()
		key.SetString(n.Content[i].Value)
		v.SetMapIndex(key, elem)
	}
}

// needsEscape reports whether appendJSONString would escape part of s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

func (d *decoder) bytes(n *Node, v reflect.Value) {
	if n.Kind != ScalarNode || n.Tag != TagStr {
		d.fail(n, "expected a base64 string, got %s", describe(n))
		return
	}
	b, err := base64.StdEncoding.DecodeString(n.Value)
	if err != nil {
		d.fail(n, "invalid base64: %v", err)
		return
	}
	v.SetBytes(b)
}

func (d *decoder) scalar(n *Node, v reflect.Value) {
	if n.Kind != ScalarNode {
		d.fail(n, "expected %s, got %s", v.Kind(), describe(n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		if n.Tag != TagStr {
			d.fail(n, "expected a string, got %s %s", describe(n), n.Value)
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Tag != TagBool {
			d.fail(n, "expected a boolean, got %s %q", describe(n), n.Value)
			return
		}
		v.SetBool(strings.EqualFold(n.Value, "true"))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, ok := n.int()
		if !ok || v.OverflowInt(i) {
			d.fail(n, "expected an integer, got %s %q", describe(n), n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		i, ok := n.int()
		if !ok || i < 0 || v.OverflowUint(uint64(i)) {
			d.fail(n, "expected a non-negative integer, got %s %q", describe(n), n.Value)
			return
		}
		v.SetUint(uint64(i))
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if (n.Tag != TagInt && n.Tag != TagFloat) || err != nil {
			d.fail(n, "expected a number, got %s %q", describe(n), n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.fail(n, "cannot decode into %s", v.Type())
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

func (d *decoder) object(n *Node, v reflect.Value, pl *plan) {
	if n.Kind != MappingNode {
		d.fail(n, "expected a mapping, got %s", describe(n))
		return
	}
	fields := pl.fieldMap()
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		f, ok := fields[name]
		if !ok {
			if d.strict {
				d.failHint(n.Content[i], didYouMean(name, fields), "unknown field %q", name)
			}
			continue // unknown fields are dropped, as the API server's default decoding does
		}
		d.push(name, fieldName)
		d.value(n.Content[i+1], fieldByIndex(v, f.index), f.plan)
		d.pop()
		if d.stop() {
			return
		}
	}
}
