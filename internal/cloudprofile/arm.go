package cloudprofile

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/winkube/winkube/internal/manifest"
)

// arm reads an ARM template: agentPoolProfiles of managedClusters
// resources and agentPools resources, with networkProfile.networkPlugin
// (learn.microsoft.com/azure/templates/microsoft.containerservice/managedclusters).
func (r *reader) arm(data []byte) error {
	var t struct {
		Resources []json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return &manifest.Error{File: r.file, Msg: "ARM template: " + err.Error(), Class: manifest.ErrSyntax, Err: err}
	}
	lines := lineIndex(data)
	var walk func([]json.RawMessage)
	walk = func(rs []json.RawMessage) {
		for _, raw := range rs {
			var res struct {
				Type       string            `json:"type"`
				Name       string            `json:"name"`
				Properties map[string]any    `json:"properties"`
				Resources  []json.RawMessage `json:"resources"`
			}
			if json.Unmarshal(raw, &res) != nil {
				continue
			}
			switch {
			case strings.EqualFold(res.Type, "Microsoft.ContainerService/managedClusters"):
				profiles, _ := res.Properties["agentPoolProfiles"].([]any)
				for _, ap := range profiles {
					m, _ := ap.(map[string]any)
					r.agentPool(m, lines, true)
				}
				if np, ok := res.Properties["networkProfile"].(map[string]any); ok {
					if v, ok := np["networkPlugin"].(string); ok && !armExpr(v) {
						r.networkPlugin, r.networkPluginLine = strings.ToLower(v), lines.find(`networkPlugin:`)
					}
				}
			case strings.EqualFold(res.Type, "Microsoft.ContainerService/managedClusters/agentPools"):
				m := res.Properties
				if m == nil {
					m = map[string]any{}
				}
				_, name, _ := strings.Cut(res.Name, "/")
				m["name"] = name
				r.agentPool(m, lines, false)
			}
			walk(res.Resources)
		}
	}
	walk(t.Resources)
	return nil
}

// armExpr reports an ARM expression ("[parameters('x')]"), which winkube
// does not evaluate.
func armExpr(s string) bool { return strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") }

// agentPool turns one agent pool profile (ARM's or Bicep's, decoded to
// values) into a pool. first marks the managed cluster's own profiles:
// the first of them must be a System pool (AKS's rule), taken as one.
func (r *reader) agentPool(m map[string]any, ls lines, inCluster bool) {
	name := text(m["name"])
	line := ls.find("name: "+name, `"name": `+name, "name:"+name)
	p := r.newPool(name, line, "aks")
	for k, v := range m {
		if s, ok := v.(string); ok && (armExpr(s) || strings.HasPrefix(s, "${")) {
			r.notef(line, "agent pool %s: %s = %s left unresolved (winkube reads literal values only)", name, k, s)
			delete(m, k)
		}
	}
	p.Count = 3
	if n, ok := number(m["count"]); ok {
		p.Count = n
	}
	r.sized(p, text(m["vmSize"]))
	if strings.EqualFold(text(m["mode"]), "System") || (inCluster && len(r.pools) == 1) {
		p.system = true
	}
	if strings.EqualFold(text(m["osType"]), "Windows") || strings.HasPrefix(strings.ToLower(text(m["osSKU"])), "windows") {
		r.aksWindows(p, line, text(m["osSKU"]))
	}
	if ts, ok := m["nodeTaints"].([]any); ok {
		for _, t := range ts {
			if tt, ok := parseTaint(text(t)); ok {
				p.Taints = append(p.Taints, tt)
			}
		}
	}
	if ls, ok := m["nodeLabels"].(map[string]any); ok {
		p.Labels = map[string]string{}
		for k, v := range ls {
			p.Labels[k] = text(v)
		}
	}
}

func text(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func number(v any) (int, bool) {
	switch n := v.(type) {
	case float64:
		return int(n), true
	case int:
		return n, true
	case string:
		i, err := strconv.Atoi(n)
		return i, err == nil
	}
	return 0, false
}

// bicepKV is a Bicep property line: key: value.
var bicepKV = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*?)\s*$`)

// bicep reads agent pools from a Bicep file without a Bicep compiler:
// every object literal that sets osType, vmSize or count inside
// agentPoolProfiles, or is the properties of an agentPools resource, is
// one pool; its string, number and string-array properties are read and
// anything else (a parameter, a function call) is noted as unresolved.
func (r *reader) bicep(data []byte) {
	ls := lineIndex(data)
	type obj struct {
		m     map[string]any
		line  int
		inAPP bool // inside agentPoolProfiles
	}
	var stack []*obj
	inPools, inAgentPoolRes := 0, false
	var arrKey string
	var arr []any
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if j := strings.Index(t, "//"); j >= 0 {
			t = strings.TrimSpace(t[:j])
		}
		if strings.HasPrefix(t, "resource ") && strings.Contains(t, "/agentPools@") {
			inAgentPoolRes = true
		}
		if arrKey != "" {
			if t == "]" {
				stack[len(stack)-1].m[arrKey] = arr
				arrKey, arr = "", nil
				continue
			}
			arr = append(arr, strings.Trim(t, "'"))
			continue
		}
		if m := bicepKV.FindStringSubmatch(t); m != nil && len(stack) > 0 {
			key, val := m[1], m[2]
			switch {
			case key == "agentPoolProfiles" && strings.HasPrefix(val, "["):
				inPools = len(stack)
			case val == "[":
				arrKey = key
				continue
			case strings.HasPrefix(val, "[") && strings.HasSuffix(val, "]"):
				var items []any
				for _, s := range strings.Fields(strings.Trim(val, "[]")) {
					items = append(items, strings.Trim(s, "'"))
				}
				stack[len(stack)-1].m[key] = items
			case strings.HasPrefix(val, "'") && strings.HasSuffix(val, "'"):
				stack[len(stack)-1].m[key] = strings.Trim(val, "'")
			case val != "{" && val != "[":
				if n, err := strconv.Atoi(val); err == nil {
					stack[len(stack)-1].m[key] = n
				} else if val != "true" && val != "false" && val != "" {
					stack[len(stack)-1].m[key] = "${" + val + "}"
				}
			}
		}
		opens, closes := strings.Count(t, "{"), strings.Count(t, "}")
		for range opens {
			stack = append(stack, &obj{m: map[string]any{}, line: i + 1, inAPP: inPools > 0})
		}
		for range closes {
			if len(stack) == 0 {
				break
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			_, pooly := o.m["vmSize"]
			_, os := o.m["osType"]
			if (o.inAPP || inAgentPoolRes) && (pooly || os) {
				if inAgentPoolRes && o.m["name"] == nil && len(stack) > 0 {
					o.m["name"] = stack[len(stack)-1].m["name"]
				}
				r.agentPool(o.m, ls, o.inAPP)
			}
			if len(stack) == 0 {
				inAgentPoolRes = false
			}
		}
		if strings.HasPrefix(t, "]") && len(stack) == inPools {
			inPools = 0
		}
		if m := bicepKV.FindStringSubmatch(t); m != nil && m[1] == "networkPlugin" {
			r.networkPlugin, r.networkPluginLine = strings.ToLower(strings.Trim(m[2], "'")), i+1
		}
	}
}
