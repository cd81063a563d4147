package fix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// keyOrder puts the fields winkube writes in the order people write them.
var keyOrder = map[string]int{"name": 0, "key": 1, "operator": 2, "value": 3, "effect": 4, "tolerationSeconds": 5}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		oi, iok := keyOrder[keys[i]]
		oj, jok := keyOrder[keys[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return keys[i] < keys[j]
	})
	return keys
}

// value renders a value for a spot in the text: a scalar in the quoting
// style it replaces (style) when that can hold it, quoted whenever a plain
// scalar could be misread in any context (so inFlow needs no rule of its
// own); a collection in flow style; JSON in a JSON document.
func (t *text) value(v any, inFlow bool, style yaml.Style) string {
	switch v.(type) {
	case map[string]any, []any:
		return t.flow(v)
	}
	if t.json {
		return jsonText(v)
	}
	s, isString := v.(string)
	if !isString {
		b, err := yaml.Marshal(v)
		if err != nil {
			return jsonText(v)
		}
		return strings.TrimSuffix(string(b), "\n")
	}
	switch {
	case style&yaml.DoubleQuotedStyle != 0:
		return jsonText(s)
	case style&yaml.SingleQuotedStyle != 0 && printable(s):
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	case plainSafe(s):
		return s
	}
	if b, err := yaml.Marshal(s); err == nil && (b[0] == '"' || b[0] == '\'') && bytes.Count(b, []byte("\n")) == 1 {
		return strings.TrimSuffix(string(b), "\n") // yaml.v3's own quoting: "10.0"
	}
	return jsonText(s)
}

// key renders a mapping key.
func (t *text) key(k string, inFlow bool) string { return t.value(k, inFlow, 0) }

// plainSafe reports whether s reads back as the same string when written
// as a plain scalar: yaml.v3 would write it plain (it does not look like a
// number, bool or null), and it holds none of the characters that end or
// change a plain scalar in some context, nor starts with an indicator.
func plainSafe(s string) bool {
	if s == "" || strings.ContainsAny(s, ":#{}[],\\\"'`|>&*!%@\t\r\n") || strings.ContainsAny(s[:1], "-?") {
		return false
	}
	if strings.TrimSpace(s) != s || !printable(s) {
		return false
	}
	b, err := yaml.Marshal(s)
	return err == nil && string(b) == s+"\n"
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	return true
}

// jsonText is v as JSON, which is also a valid YAML flow scalar.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// flow renders a value on one line: {a: b, c: [d]}.
func (t *text) flow(v any) string {
	switch x := v.(type) {
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range sortedKeys(x) {
			parts = append(parts, t.key(k, true)+": "+t.flow(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, t.flow(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return t.value(v, true, 0)
}

// block renders "k: v" lines at indent for the nested path keys, ending
// in value.
func (t *text) block(indent int, keys []string, value any) []string {
	pad := strings.Repeat(" ", indent)
	if len(keys) > 1 {
		return append([]string{pad + t.key(keys[0], false) + ":"}, t.block(indent+t.step, keys[1:], value)...)
	}
	k := t.key(keys[0], false)
	switch x := value.(type) {
	case map[string]any:
		if len(x) == 0 {
			return []string{pad + k + ": {}"}
		}
		var out []string
		for _, mk := range sortedKeys(x) {
			out = append(out, t.block(indent+t.step, []string{mk}, x[mk])...)
		}
		return append([]string{pad + k + ":"}, out...)
	case []any:
		if len(x) == 0 {
			return []string{pad + k + ": []"}
		}
		itemIndent := indent
		if t.seqIndented {
			itemIndent += t.step
		}
		out := []string{pad + k + ":"}
		for _, e := range x {
			out = append(out, t.item(itemIndent, e, false)...)
		}
		return out
	}
	return []string{pad + k + ": " + t.value(value, false, 0)}
}

// item renders a list item with its dash at indent; asFlow writes a map
// item on the dash line in flow style, matching its neighbours.
func (t *text) item(indent int, v any, asFlow bool) []string {
	pad := strings.Repeat(" ", indent)
	m, isMap := v.(map[string]any)
	if !isMap || asFlow || len(m) == 0 {
		return []string{pad + "- " + t.flow(v)}
	}
	var out []string
	for i, k := range sortedKeys(m) {
		lines := t.block(indent+2, []string{k}, m[k])
		if i == 0 {
			lines[0] = pad + "- " + strings.TrimLeft(lines[0], " ")
		}
		out = append(out, lines...)
	}
	return out
}
