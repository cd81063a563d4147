package fix

import (
	"fmt"
	"sort"
	"strings"

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

// scalar renders a scalar as yaml.v3 would, quoting what would otherwise
// read as another type ("10.0" stays a string).
func scalar(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(string(b), "\n")
}

func key(k string) string { return scalar(k) }

// flow renders a value on one line: {a: b, c: [d]}.
func flow(v any) string {
	switch x := v.(type) {
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range sortedKeys(x) {
			parts = append(parts, key(k)+": "+flow(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, flow(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return scalar(v)
}

// block renders "k: v" lines at indent for the nested path keys, ending
// in value.
func (t *text) block(indent int, keys []string, value any) []string {
	pad := strings.Repeat(" ", indent)
	if len(keys) > 1 {
		return append([]string{pad + key(keys[0]) + ":"}, t.block(indent+t.step, keys[1:], value)...)
	}
	k := key(keys[0])
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
	return []string{pad + k + ": " + scalar(value)}
}

// item renders a list item with its dash at indent; asFlow writes a map
// item on the dash line in flow style, matching its neighbours.
func (t *text) item(indent int, v any, asFlow bool) []string {
	pad := strings.Repeat(" ", indent)
	m, isMap := v.(map[string]any)
	if !isMap || asFlow || len(m) == 0 {
		return []string{pad + "- " + flow(v)}
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
