package generate

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/winsupport"
	"k8s.io/apimachinery/pkg/api/resource"
)

// APIVersion and Kind identify the input.
const (
	APIVersion = manifest.APIVersion
	Kind       = "WindowsNode"
)

// CNI choices.
const (
	FlannelOverlay  = "flannel-overlay"
	FlannelL2Bridge = "flannel-l2bridge"
	CalicoVXLAN     = "calico-vxlan"
	Antrea          = "antrea"
)

// CNIs lists the CNI choices.
var CNIs = []string{FlannelOverlay, FlannelL2Bridge, CalicoVXLAN, Antrea}

// Node is the decoded WindowsNode.
type Node struct {
	APIVersion        string   `json:"apiVersion"`
	Kind              string   `json:"kind"`
	KubernetesVersion string   `json:"kubernetesVersion"`
	WindowsBuild      string   `json:"windowsBuild"`
	ContainerdVersion string   `json:"containerdVersion"`
	CNI               string   `json:"cni"`
	PodCIDR           string   `json:"podCIDR"`
	ServiceCIDR       string   `json:"serviceCIDR"`
	ClusterDNS        string   `json:"clusterDNS,omitempty"`
	SourceVip         string   `json:"sourceVip,omitempty"`
	Reserved          Reserved `json:"reserved,omitempty"`
	SandboxImage      string   `json:"sandboxImage,omitempty"`
	HyperV            bool     `json:"hyperV,omitempty"`
}

// Reserved is what the node keeps back for the OS and node services.
type Reserved struct {
	Memory string `json:"memory,omitempty"`
	CPU    string `json:"cpu,omitempty"`
}

// Resolved is a validated Node with parsed values and defaults filled in.
type Resolved struct {
	Node
	Build              winsupport.Build
	BuildNumber        int
	ContainerdMajor    int
	Pod, Service       netip.Prefix
	DNS                netip.Addr
	MemReserve, CPURes resource.Quantity
	File               string
}

// Load reads and validates a WindowsNode file through the path every
// versioned file takes (manifest.LoadFile): strict decoding, then every
// problem at once, each at its file:line:col.
func Load(path string) (*Resolved, error) {
	n := Node{}
	var r *Resolved
	err := manifest.LoadFile(path, &n, func() []manifest.Problem {
		var errs error
		r, errs = n.Resolve()
		return problems(errs)
	})
	if err != nil {
		return nil, err
	}
	r.File = path
	return r, nil
}

// problems turns Resolve's "field: message" errors into located problems.
func problems(err error) []manifest.Problem {
	if err == nil {
		return nil
	}
	var ps []manifest.Problem
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		path, msg, _ := strings.Cut(e.Error(), ": ")
		ps = append(ps, manifest.Problemf(path, "%s", msg))
	}
	return ps
}

// Resolve validates n and fills in defaults.
func (n Node) Resolve() (*Resolved, error) {
	r := &Resolved{Node: n}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if n.APIVersion != APIVersion {
		bad("apiVersion: must be %s, got %q", APIVersion, n.APIVersion)
	}
	if n.Kind != Kind {
		bad("kind: must be %s, got %q", Kind, n.Kind)
	}
	if n.KubernetesVersion == "" {
		r.KubernetesVersion = winsupport.Newest.String()
	}
	v, err := winsupport.ParseVersion(r.KubernetesVersion)
	if err == nil && !versionSyntax.MatchString(r.KubernetesVersion) {
		err = fmt.Errorf("invalid Kubernetes version %q: want 1.MINOR or 1.MINOR.PATCH, e.g. 1.36 or v1.36.3", r.KubernetesVersion)
	}
	if err != nil {
		bad("kubernetesVersion: %v", err)
	}
	model := winsupport.ForVersion(v)
	if b, ok := lookupBuild(model, n.WindowsBuild); !ok {
		bad("windowsBuild: unknown build %q: use 10.0.17763, 10.0.20348, 10.0.26100 or ltsc2019, ltsc2022, ltsc2025", n.WindowsBuild)
	} else {
		r.Build = b
		r.BuildNumber, _ = strconv.Atoi(strings.TrimPrefix(b.Build, "10.0."))
		if err == nil && !model.NodeSupported(b) {
			bad("windowsBuild: %s (%s) is not a supported node OS for Kubernetes %s (supported in %s)", b.Name, b.Build, v, b.Supports)
		}
	}
	switch major, _, _ := strings.Cut(strings.TrimPrefix(n.ContainerdVersion, "v"), "."); major {
	case "1":
		r.ContainerdMajor = 1
	case "2":
		r.ContainerdMajor = 2
	default:
		bad("containerdVersion: must be 1.x or 2.x (e.g. 1.7.27 or 2.1.4), got %q", n.ContainerdVersion)
	}
	if !slices.Contains(CNIs, n.CNI) {
		bad("cni: must be one of %s, got %q", strings.Join(CNIs, ", "), n.CNI)
	}
	r.Pod = prefix(&errs, "podCIDR", n.PodCIDR)
	r.Service = prefix(&errs, "serviceCIDR", n.ServiceCIDR)
	r.resolveDNS(&errs)
	r.resolveSourceVip(&errs)
	r.MemReserve = quantity(&errs, "reserved.memory", n.Reserved.Memory, "2Gi")
	r.CPURes = quantity(&errs, "reserved.cpu", n.Reserved.CPU, "500m")
	if r.MemReserve.Cmp(resource.MustParse("2Gi")) < 0 {
		bad("reserved.memory: %s is under the 2Gi a Windows node needs for the OS and node services", r.MemReserve.String())
	}
	if r.SandboxImage == "" {
		r.SandboxImage = "registry.k8s.io/pause:3.10"
	} else if !imageReference.MatchString(r.SandboxImage) || len(r.SandboxImage) > 4096 {
		bad("sandboxImage: %q is not an image reference (registry/name:tag or name@sha256:digest, lower-case path)", r.SandboxImage)
	}
	return r, errors.Join(errs...)
}

// versionSyntax is what kubernetesVersion may be: it is written into a
// PowerShell comment, so nothing but the version's own characters passes.
var versionSyntax = regexp.MustCompile(`^v?1\.[0-9]{1,3}(\.[0-9]{1,4})?$`)

// imageReference is the reference grammar of github.com/distribution/reference
// v0.6.0 regexp.go (domain, path components, tag, digest), anchored.
var imageReference = func() *regexp.Regexp {
	const (
		domainComp = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
		domain     = domainComp + `(?:\.` + domainComp + `)*(?::[0-9]+)?`
		pathComp   = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
		name       = `(?:` + domain + `/)?` + pathComp + `(?:/` + pathComp + `)*`
		tag        = `:[\w][\w.-]{0,127}`
		digest     = `@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
	)
	return regexp.MustCompile(`^` + name + `(?:` + tag + `)?(?:` + digest + `)?$`)
}()

func (r *Resolved) resolveDNS(errs *[]error) {
	if !r.Service.IsValid() {
		return
	}
	if r.ClusterDNS == "" {
		a := r.Service.Masked().Addr()
		for range 10 {
			a = a.Next()
		}
		r.DNS, r.ClusterDNS = a, a.String()
		return
	}
	a, err := netip.ParseAddr(r.ClusterDNS)
	switch {
	case err != nil:
		*errs = append(*errs, fmt.Errorf("clusterDNS: %v", err))
	case a.Zone() != "":
		*errs = append(*errs, fmt.Errorf("clusterDNS: %q: an IPv6 zone is not a cluster address", r.ClusterDNS))
	case !r.Service.Contains(a):
		*errs = append(*errs, fmt.Errorf("clusterDNS: %s is outside serviceCIDR %s", a, r.Service))
	}
	r.DNS = a
	r.ClusterDNS = a.String()
}

func (r *Resolved) resolveSourceVip(errs *[]error) {
	overlay := r.CNI == FlannelOverlay || r.CNI == CalicoVXLAN
	switch {
	case overlay && r.SourceVip == "":
		*errs = append(*errs, fmt.Errorf("sourceVip: required for %s: kube-proxy SNATs to it; reserve an address from this node's pod subnet", r.CNI))
	case !overlay && r.SourceVip != "":
		*errs = append(*errs, fmt.Errorf("sourceVip: only overlay networks use it; remove it for %s", r.CNI))
	case r.SourceVip != "":
		a, err := netip.ParseAddr(r.SourceVip)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("sourceVip: %v", err))
		} else if a.Zone() != "" {
			*errs = append(*errs, fmt.Errorf("sourceVip: %q: an IPv6 zone is not a pod address", r.SourceVip))
		} else if r.Pod.IsValid() && !r.Pod.Contains(a) {
			*errs = append(*errs, fmt.Errorf("sourceVip: %s is outside podCIDR %s", a, r.Pod))
		} else {
			r.SourceVip = a.String()
		}
	}
}

func lookupBuild(m winsupport.Model, s string) (winsupport.Build, bool) {
	if b, ok := m.BuildByNumber(s); ok {
		return b, true
	}
	for _, b := range m.Builds() {
		if slices.Contains(b.Tags, strings.ToLower(s)) {
			return b, true
		}
	}
	return winsupport.Build{}, false
}

func prefix(errs *[]error, field, s string) netip.Prefix {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s: want a CIDR such as 10.244.0.0/16, got %q", field, s))
		return netip.Prefix{}
	}
	return p.Masked()
}

func quantity(errs *[]error, field, s, def string) resource.Quantity {
	if s == "" {
		s = def
	}
	q, err := resource.ParseQuantity(s)
	switch {
	case err != nil:
		*errs = append(*errs, fmt.Errorf("%s: %q: %v", field, s, err))
	case q.Sign() < 0:
		*errs = append(*errs, fmt.Errorf("%s: %s is negative", field, q.String()))
	}
	return q
}
