package cloudprofile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
)

// maxFile bounds what is read of a definition.
const maxFile = 8 << 20

// Note is something said about a definition: a value left unresolved, a
// default assumed, or (with Check set) a problem that strands pods.
type Note struct {
	File  string
	Line  int
	Check string // the check's ID for a problem, "" for information
	Msg   string
}

func (n Note) String() string {
	s := n.File
	if n.Line > 0 {
		s += fmt.Sprintf(":%d", n.Line)
	}
	s += ": " + n.Msg
	if n.Check != "" {
		s += " [" + n.Check + "]"
	}
	return s
}

// Profile is a cluster read from a node-pool definition.
type Profile struct {
	Cluster *cluster.Cluster
	Format  string // "eksctl ClusterConfig", "Terraform", ...
	Notes   []Note

	file  string
	pools []*pool
}

// pool is a cluster pool with where it was defined and what decides its
// checks.
type pool struct {
	cluster.Pool
	line     int
	vm       string
	provider string // aks, eks, gke
	system   bool   // an AKS System-mode pool or a cluster's default pool
	sku2019  bool   // AKS Windows2019, retired
}

// reader collects pools and notes from one file.
type reader struct {
	file  string
	src   []byte
	pools []*pool
	notes []Note
	// Cluster-wide settings that Windows pools need.
	networkPlugin     string // AKS: azure, kubenet, none
	networkPluginLine int
	ipAlias           *bool // GKE: VPC-native (alias IPs)
	ipAliasLine       int
}

func (r *reader) notef(line int, format string, args ...any) {
	r.notes = append(r.notes, Note{File: r.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (r *reader) problem(line int, check, format string, args ...any) {
	r.notes = append(r.notes, Note{File: r.file, Line: line, Check: check, Msg: fmt.Sprintf(format, args...)})
}

// newPool starts a pool with the defaults winkube assumes when the
// definition does not say: one node of 4 CPU and 16Gi.
func (r *reader) newPool(name string, line int, provider string) *pool {
	p := &pool{Pool: cluster.Pool{Name: name, Count: 1, OS: "linux", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi"), MaxPods: 110}, line: line, provider: provider}
	r.pools = append(r.pools, p)
	return p
}

// Is reports whether path looks like a node-pool definition this package
// reads, judged by its name and first bytes.
func Is(path string) bool {
	_, ok := format(path)
	return ok
}

func format(path string) (string, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".tf":
		return "Terraform", true
	case ".sh", ".bash", ".ps1":
		return "script", true
	case ".bicep":
		return "Bicep", true
	}
	data, err := readHead(path)
	if err != nil {
		return "", false
	}
	switch {
	case bytes.Contains(data, []byte("eksctl.io/")) && bytes.Contains(data, []byte("ClusterConfig")):
		return "eksctl ClusterConfig", true
	case bytes.Contains(data, []byte("karpenter.sh/")) && bytes.Contains(data, []byte("NodePool")):
		return "Karpenter", true
	case bytes.Contains(data, []byte("agentPoolProfiles")) || bytes.Contains(data, []byte("Microsoft.ContainerService/managedClusters")):
		return "ARM template", true
	case bytes.HasPrefix(data, []byte("#!")):
		return "script", true
	}
	return "", false
}

func readHead(path string) ([]byte, error) {
	// Only a regular file is sniffed: opening a FIFO or a device would
	// block or read without end (Load reads through manifest.ReadFile,
	// which refuses them with a clear error).
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

// Load reads the node pools of the definition at path into a cluster.
func Load(path string) (*Profile, error) {
	kind, ok := format(path)
	if !ok {
		return nil, &manifest.Error{File: path, Msg: "not a node-pool definition winkube reads", Class: manifest.ErrInvalid,
			Hint: "--cluster takes eksctl ClusterConfig, Terraform (.tf), ARM templates, Bicep, Karpenter NodePools or scripts (.sh) with az/eksctl/gcloud/aws commands"}
	}
	data, err := manifest.ReadFile(path, maxFile)
	if err != nil {
		return nil, err
	}
	r := &reader{file: path, src: data}
	if err := r.read(kind, data); err != nil {
		return nil, err
	}
	if len(r.pools) == 0 {
		return nil, &manifest.Error{File: path, Msg: "no node pools found in this " + kind, Class: manifest.ErrInvalid,
			Hint: "winkube reads " + readsWhat[kind]}
	}
	r.check()
	c := &cluster.Cluster{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	for _, p := range r.pools {
		c.Pools = append(c.Pools, p.Pool)
	}
	return &Profile{Cluster: c, Format: kind, Notes: r.notes, file: path, pools: r.pools}, nil
}

var readsWhat = map[string]string{
	"Terraform":            "resources azurerm_kubernetes_cluster(_node_pool), aws_eks_node_group and google_container_node_pool",
	"script":               "az aks create / nodepool add, eksctl create nodegroup, aws eks create-nodegroup, gcloud container clusters create / node-pools create",
	"Bicep":                "agentPoolProfiles of Microsoft.ContainerService/managedClusters and agentPools resources",
	"ARM template":         "agentPoolProfiles of Microsoft.ContainerService/managedClusters and agentPools resources",
	"eksctl ClusterConfig": "nodeGroups and managedNodeGroups",
	"Karpenter":            "NodePools (karpenter.sh/v1) with their EC2NodeClass or AKSNodeClass",
}

func (r *reader) read(kind string, data []byte) error {
	switch kind {
	case "Terraform":
		return r.terraform(data)
	case "script":
		r.script(data)
	case "Bicep":
		r.bicep(data)
	case "ARM template":
		return r.arm(data)
	case "eksctl ClusterConfig":
		return r.eksctl(data)
	case "Karpenter":
		return r.karpenter(data)
	}
	return nil
}

// windows makes p a Windows pool of the build ("" when unknown).
func (p *pool) windows(build string) {
	p.OS = "windows"
	p.WindowsBuild = build
}

// taint parses key=value:Effect (az, gcloud, eksctl) into a taint.
func parseTaint(s string) (corev1.Taint, bool) {
	kv, effect, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return corev1.Taint{}, false
	}
	k, v, _ := strings.Cut(kv, "=")
	e := corev1.TaintEffect(effect)
	switch strings.ToUpper(effect) { // aws eks: NO_SCHEDULE
	case "NO_SCHEDULE":
		e = corev1.TaintEffectNoSchedule
	case "NO_EXECUTE":
		e = corev1.TaintEffectNoExecute
	case "PREFER_NO_SCHEDULE":
		e = corev1.TaintEffectPreferNoSchedule
	}
	return corev1.Taint{Key: k, Value: v, Effect: e}, k != ""
}

// parseLabels parses k=v,k2=v2.
func parseLabels(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k != "" {
			out[k] = v
		}
	}
	return out
}
