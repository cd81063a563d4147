package cloudprofile

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
)

// terraform reads the node-pool resources of a .tf file. Only literal
// values are resolved: a variable, local or reference is named in a note
// and the provider's default is kept.
func (r *reader) terraform(data []byte) error {
	f, diags := hclsyntax.ParseConfig(data, r.file, hcl.Pos{Line: 1, Column: 1, Byte: 0})
	if diags.HasErrors() {
		d := diags[0]
		e := &manifest.Error{File: r.file, Msg: "Terraform: " + d.Summary + ": " + d.Detail, Class: manifest.ErrSyntax}
		if d.Subject != nil {
			e.Line, e.Column = d.Subject.Start.Line, d.Subject.Start.Column
		}
		return e
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	for _, b := range body.Blocks {
		if b.Type != "resource" || len(b.Labels) != 2 {
			continue
		}
		tb := tfBlock{r: r, b: b.Body, res: b.Labels[0] + "." + b.Labels[1]}
		line := b.TypeRange.Start.Line
		switch b.Labels[0] {
		case "azurerm_kubernetes_cluster":
			r.tfAKS(tb, line)
		case "azurerm_kubernetes_cluster_node_pool":
			r.tfAKSPool(tb, line, false)
		case "aws_eks_node_group":
			r.tfEKS(tb, line)
		case "google_container_node_pool":
			r.tfGKEPool(tb, line)
		case "google_container_cluster":
			r.tfGKECluster(tb, line)
		}
	}
	return nil
}

// tfBlock reads literal attributes of a block.
type tfBlock struct {
	r   *reader
	b   *hclsyntax.Body
	res string // resource address, for notes
}

func (t tfBlock) block(name string) (tfBlock, bool) {
	for _, b := range t.b.Blocks {
		if b.Type == name {
			return tfBlock{r: t.r, b: b.Body, res: t.res + "." + name}, true
		}
	}
	return tfBlock{}, false
}

func (t tfBlock) blocks(name string) []tfBlock {
	var out []tfBlock
	for _, b := range t.b.Blocks {
		if b.Type == name {
			out = append(out, tfBlock{r: t.r, b: b.Body, res: t.res + "." + name})
		}
	}
	return out
}

// value is the attribute's literal value; a missing attribute is
// cty.NilVal, an unresolved one is noted and cty.NilVal.
func (t tfBlock) value(name string) cty.Value {
	a, ok := t.b.Attributes[name]
	if !ok {
		return cty.NilVal
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		src := strings.TrimSpace(string(a.Expr.Range().SliceBytes(t.r.src)))
		t.r.notef(a.SrcRange.Start.Line, "%s.%s = %s left unresolved (winkube reads literal values only); the provider's default is assumed", t.res, name, src)
		return cty.NilVal
	}
	return v
}

func (t tfBlock) str(name string) string {
	v := t.value(name)
	if v == cty.NilVal || v.IsNull() || !v.Type().Equals(cty.String) {
		return ""
	}
	return v.AsString()
}

func (t tfBlock) num(name string) (int, bool) {
	v := t.value(name)
	if v == cty.NilVal || v.IsNull() || !v.Type().Equals(cty.Number) {
		return 0, false
	}
	f, _ := v.AsBigFloat().Int64()
	return int(f), true
}

func (t tfBlock) strings(name string) []string {
	v := t.value(name)
	if v == cty.NilVal || v.IsNull() || !(v.Type().IsListType() || v.Type().IsTupleType() || v.Type().IsSetType()) {
		return nil
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsKnown() && !e.IsNull() && e.Type().Equals(cty.String) {
			out = append(out, e.AsString())
		}
	}
	return out
}

func (t tfBlock) stringMap(name string) map[string]string {
	v := t.value(name)
	if v == cty.NilVal || v.IsNull() || !(v.Type().IsMapType() || v.Type().IsObjectType()) {
		return nil
	}
	out := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		if e.IsKnown() && !e.IsNull() && e.Type().Equals(cty.String) {
			out[k.AsString()] = e.AsString()
		}
	}
	return out
}

// tfAKS: the cluster's default_node_pool is a Linux System pool;
// network_profile.network_plugin decides whether Windows pools can join
// (registry.terraform.io/providers/hashicorp/azurerm/latest/docs/resources/kubernetes_cluster).
func (r *reader) tfAKS(t tfBlock, line int) {
	if dp, ok := t.block("default_node_pool"); ok {
		p := r.tfAKSPool(dp, line, true)
		p.system = true
	}
	if np, ok := t.block("network_profile"); ok {
		if v := np.str("network_plugin"); v != "" {
			r.networkPlugin, r.networkPluginLine = strings.ToLower(v), line
		}
	}
}

func (r *reader) tfAKSPool(t tfBlock, line int, def bool) *pool {
	p := r.newPool(t.str("name"), line, "aks")
	p.Count = 1
	if n, ok := t.num("node_count"); ok {
		p.Count = n
	}
	r.sized(p, t.str("vm_size"))
	if mode := t.str("mode"); strings.EqualFold(mode, "System") {
		p.system = true
	}
	if !def && (strings.EqualFold(t.str("os_type"), "Windows") || strings.HasPrefix(strings.ToLower(t.str("os_sku")), "windows")) {
		r.aksWindows(p, line, t.str("os_sku"))
	}
	for _, s := range t.strings("node_taints") {
		if tt, ok := parseTaint(s); ok {
			p.Taints = append(p.Taints, tt)
		}
	}
	p.Labels = t.stringMap("node_labels")
	return p
}

// tfEKS: aws_eks_node_group, AL2 or AL2023 unless ami_type says Windows
// (registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/eks_node_group).
func (r *reader) tfEKS(t tfBlock, line int) {
	p := r.newPool(t.str("node_group_name"), line, "eks")
	if sc, ok := t.block("scaling_config"); ok {
		if n, ok := sc.num("desired_size"); ok {
			p.Count = n
		}
	}
	vm := "t3.medium"
	if ts := t.strings("instance_types"); len(ts) > 0 {
		vm = ts[0]
	}
	r.sized(p, vm)
	if b, win := eksAMI(t.str("ami_type")); win {
		p.windows(b)
	}
	p.Labels = t.stringMap("labels")
	for _, tb := range t.blocks("taint") {
		if tt, ok := parseTaint(fmt.Sprintf("%s=%s:%s", tb.str("key"), tb.str("value"), tb.str("effect"))); ok {
			p.Taints = append(p.Taints, tt)
		}
	}
}

// tfGKEPool: google_container_node_pool; node_config.image_type WINDOWS_*
// makes Windows Server nodes, tainted by GKE
// (registry.terraform.io/providers/hashicorp/google/latest/docs/resources/container_node_pool).
func (r *reader) tfGKEPool(t tfBlock, line int) {
	p := r.newPool(t.str("name"), line, "gke")
	p.Count = 3
	if n, ok := t.num("node_count"); ok {
		p.Count = n
	}
	nc, ok := t.block("node_config")
	if !ok {
		r.sized(p, "e2-medium")
		return
	}
	vm := nc.str("machine_type")
	if vm == "" {
		vm = "e2-medium"
	}
	r.sized(p, vm)
	if strings.HasPrefix(strings.ToUpper(nc.str("image_type")), "WINDOWS") {
		f := flags{vals: map[string][]string{}}
		if w, ok := nc.block("windows_node_config"); ok {
			if v := w.str("osversion"); v != "" {
				f.vals["--windows-os-version"] = []string{v}
			}
		}
		r.gkeWindows(p, line, f)
	}
	p.Labels = nc.stringMap("labels")
	for _, tb := range nc.blocks("taint") {
		if tt, ok := parseTaint(fmt.Sprintf("%s=%s:%s", tb.str("key"), tb.str("value"), tb.str("effect"))); ok && !cluster.HasTaint(p.Taints, tt) {
			p.Taints = append(p.Taints, tt)
		}
	}
}

// tfGKECluster records whether the cluster is VPC-native: yes with an
// ip_allocation_policy block or networking_mode VPC_NATIVE, no with
// networking_mode ROUTES; otherwise the provider version decides, and
// winkube does not guess.
func (r *reader) tfGKECluster(t tfBlock, line int) {
	_, alias := t.block("ip_allocation_policy")
	switch t.str("networking_mode") {
	case "VPC_NATIVE":
		alias = true
	case "ROUTES":
		r.ipAlias, r.ipAliasLine = new(false), line
		return
	}
	if alias {
		r.ipAlias, r.ipAliasLine = new(true), line
	}
}
