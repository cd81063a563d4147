package nodeconfig

import (
	"encoding/json"
	"fmt"
	"strings"
)

// plugin is one plugin of a CNI configuration, with where it sits.
type plugin struct {
	file *File
	path string // "" for a single-plugin .conf, "plugins[i]" in a .conflist
	conf map[string]any
}

// typ is the plugin's type; for flannel, the delegate's type is in hns.
func (p plugin) typ() string { return str(p.conf["type"]) }

// hnsPath is where the HNS settings of the plugin live: the delegate of
// flannel, the plugin itself otherwise.
func (p plugin) hnsPath() (string, map[string]any) {
	if d, ok := p.conf["delegate"].(map[string]any); ok {
		return child(p.path, "delegate"), d
	}
	return p.path, p.conf
}

// plugins lists the plugins of a CNI file.
func plugins(f *File) []plugin {
	list, ok := f.Tree["plugins"].([]any)
	if !ok {
		return []plugin{{file: f, conf: f.Tree}}
	}
	var out []plugin
	for i, v := range list {
		if m, ok := v.(map[string]any); ok {
			out = append(out, plugin{file: f, path: item("plugins", i), conf: m})
		}
	}
	return out
}

// network is what a CNI file or flannel's net-conf.json says of the HNS
// network the pods join.
type network struct {
	file     *File
	name     string // the HNS network name
	namePath string
	cni      string // flannel, win-bridge, win-overlay, calico, antrea, azure-vnet, ...
	overlay  bool
	bridge   bool // l2bridge: win-bridge/sdnbridge, or flannel's host-gw
}

// networks reads the networks of every CNI and net-conf file.
func networks(files []*File) []network {
	var out []network
	for _, f := range files {
		switch f.Kind {
		case CNI:
			n := network{file: f, name: str(f.Tree["name"]), namePath: "name"}
			for _, p := range plugins(f) {
				_, hns := p.hnsPath()
				t := strings.ToLower(p.typ())
				if n.cni == "" || t == "flannel" || t == "calico" || t == "antrea" || strings.HasPrefix(t, "win-") || strings.HasPrefix(t, "sdn") || t == "azure-vnet" {
					n.cni = t
				}
				switch {
				case str(hns["type"]) == "win-overlay" || str(hns["type"]) == "sdnoverlay":
					n.overlay = true
				case t == "calico" && strings.EqualFold(str(p.conf["mode"]), "vxlan"):
					n.overlay = true
				case t == "win-bridge" || t == "sdnbridge" || str(hns["type"]) == "win-bridge" || str(hns["type"]) == "sdnbridge":
					n.bridge = true
				}
			}
			out = append(out, n)
		case FlannelNet:
			bv, bk := lookupFold(f.Tree, "Backend")
			b, _ := bv.(map[string]any)
			tv, _ := lookupFold(b, "Type")
			bt := strings.ToLower(str(tv))
			nv, nk := lookupFold(b, "Name")
			n := network{file: f, cni: "flannel", overlay: bt == "vxlan", bridge: bt == "host-gw", namePath: child(bk, nk)}
			n.name = str(nv)
			switch {
			case n.name != "":
			case bt == "vxlan":
				vni := 4096
				if v, ok := num(fold(b, "VNI")); ok {
					vni = int(v)
				}
				n.name, n.namePath = fmt.Sprintf("flannel.%d", vni), bk
			case bt == "host-gw":
				n.name, n.namePath = "cbr0", bk
			}
			out = append(out, n)
		}
	}
	return out
}

// fold is the value of key in m, matched as Go's JSON decoder does.
func fold(m map[string]any, key string) any {
	v, _ := lookupFold(m, key)
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// num reads a JSON or TOML number.
func num(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// get walks nested maps by keys.
func get(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// lookupFold returns the value of key in m ignoring case, as Go's JSON
// decoder (and so the CNI plugins) match keys, and the key as written.
func lookupFold(m map[string]any, key string) (any, string) {
	if v, ok := m[key]; ok {
		return v, key
	}
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, k
		}
	}
	return nil, ""
}
