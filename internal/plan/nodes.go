package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/nodeconfig/generate"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// DefaultNodeTemplate is the network part of the generated node
// configuration when no --node-template gives it: flannel's host-gw
// (l2bridge) backend on kubeadm's default CIDRs, which needs no sourceVip.
var DefaultNodeTemplate = generate.Node{
	APIVersion: generate.APIVersion, Kind: generate.Kind,
	CNI: generate.FlannelL2Bridge, PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12",
}

// DefaultContainerd is the containerd release of a generated node when no
// --containerd says.
const DefaultContainerd = "2.1.4"

// NodeConfig is the configuration a target Windows pool's nodes need, as
// `winkube nodeconfig generate` writes it.
type NodeConfig struct {
	Pool        string          `json:"pool"`
	WindowsNode generate.Node   `json:"windowsNode"`
	Files       []GeneratedFile `json:"files,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// GeneratedFile is one file of a node, its path relative to C:\.
type GeneratedFile struct {
	Path string `json:"path"`
	Data string `json:"data"`
}

// NodeIssue is a finding of `winkube nodeconfig validate` on the current
// node files against the target.
type NodeIssue struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Message  string `json:"message"`
}

// changedWindowsPools are the target's Windows pools whose nodes are new
// or run another build, or all of them when the Kubernetes or containerd
// release changes.
func changedWindowsPools(in Input, t *Target) []cluster.Pool {
	old := map[string]cluster.Pool{}
	for _, p := range in.Current.Pools {
		old[p.Name] = p
	}
	everything := t.model.V != in.Model.V || t.containerd != in.Containerd
	var out []cluster.Pool
	for _, p := range t.cluster.PoolsOf("windows") {
		o, ok := old[p.Name]
		if everything || !ok || o.WindowsBuild != p.WindowsBuild || o.SandboxImage != p.SandboxImage {
			out = append(out, p)
		}
	}
	return out
}

func nodeConfigs(in Input, t *Target) ([]NodeConfig, []rule.Finding, error) {
	tmpl := DefaultNodeTemplate
	if in.NodeTemplate != nil {
		tmpl = *in.NodeTemplate
	}
	containerd := t.containerd
	if containerd == "" {
		containerd = DefaultContainerd
	}
	pools := changedWindowsPools(in, t)
	var out []NodeConfig
	for _, p := range pools {
		n := tmpl
		n.KubernetesVersion = t.model.V.String()
		n.WindowsBuild = p.WindowsBuild
		n.ContainerdVersion = containerd
		if p.SandboxImage != "" {
			n.SandboxImage = p.SandboxImage
		}
		nc := NodeConfig{Pool: p.Name, WindowsNode: n}
		r, err := n.Resolve()
		if err != nil {
			nc.Error = strings.ReplaceAll(err.Error(), "\n", "; ")
			out = append(out, nc)
			continue
		}
		r.File = p.Name + "-node.yaml"
		for _, f := range generate.Generate(r) {
			nc.Files = append(nc.Files, GeneratedFile{Path: f.Path, Data: string(f.Data)})
		}
		out = append(out, nc)
	}
	if in.ValidateNodes == nil {
		return out, nil, nil
	}
	nt := NodeTarget{Model: t.model}
	if t.containerd != "" {
		nt.ContainerdMajor, _ = strconv.Atoi(strings.SplitN(strings.TrimPrefix(t.containerd, "v"), ".", 2)[0])
	}
	if len(pools) > 0 {
		nt.BuildNumber, _ = strconv.Atoi(strings.TrimPrefix(pools[0].WindowsBuild, "10.0."))
	}
	return out, in.ValidateNodes(nt), nil
}

// NodeTarget is what the current node files are validated against: the
// first changed Windows pool's build, the target containerd release line
// and Kubernetes release (0 when unknown or unchanged).
type NodeTarget struct {
	BuildNumber     int
	ContainerdMajor int
	Model           winsupport.Model
}

func nodeIssues(fs []rule.Finding) []NodeIssue {
	var out []NodeIssue
	for _, f := range fs {
		out = append(out, NodeIssue{Rule: f.Rule, Severity: f.Severity.String(), File: f.File, Line: f.Line, Message: f.Message})
	}
	return out
}

// nodeConfigCommand is the command that writes a pool's configuration.
func nodeConfigCommand(pool string) string {
	return fmt.Sprintf("winkube nodeconfig generate -f %s-node.yaml --out-dir %s/", pool, pool)
}
