package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/internal/live"
)

// Kubelet access paths.
const (
	// PathDirect talks to each kubelet's port with the client's own
	// credentials; the kubelet authorizes each request with a
	// SubjectAccessReview on a subresource of the node: nodes/configz
	// (fine-grained kubelet authorization, GA and locked on in 1.36),
	// nodes/log and nodes/stats.
	PathDirect = "direct"
	// PathProxy goes through the API server's node proxy
	// (/api/v1/nodes/NAME/proxy/...), which needs nodes/proxy: close to
	// node admin, so it is opt-in.
	PathProxy = "proxy"
)

// Defaults for KubeletOptions.
const (
	DefaultKubeletInFlight = 16
	DefaultKubeletTimeout  = 10 * time.Second
	// DefaultKubeletMaxBytes bounds /configz and /stats/summary answers;
	// a node with 110 pods answers /stats/summary in about 300 KiB.
	DefaultKubeletMaxBytes = 8 << 20
	// DefaultLogMaxBytes bounds how much of one log answer is read.
	DefaultLogMaxBytes = 16 << 20
	DefaultLogSince    = time.Hour
	// DefaultTailLines is also the most lines kept per service: with
	// lines cut at maxLogLine, at most 2 MiB a service and node.
	DefaultTailLines = 500
	// maxLogLine is the longest log line kept whole; longer lines are cut.
	maxLogLine = 4 << 10
)

// DefaultServices are the node services whose logs are queried: the
// kubelet, the runtime, kube-proxy and the CNI daemons of flannel,
// Calico and Antrea as their Windows installers name them.
var DefaultServices = []string{"kubelet", "containerd", "kube-proxy", "flanneld", "CalicoNode", "CalicoFelix", "antrea-agent"}

// KubeletOptions says what to read of the kubelets and how.
type KubeletOptions struct {
	// Path is PathDirect or PathProxy.
	Path string
	// Nodes picks the nodes whose kubelets are read; nil means the
	// Windows nodes.
	Nodes func(*corev1.Node) bool
	// Configz and Stats read /configz and /stats/summary.
	Configz, Stats bool
	// Services are the services whose logs are queried (none: no logs).
	Services []string
	// Since is how far back logs are asked for (sinceTime), TailLines how
	// many lines at most per service (tailLines, and the most kept).
	Since     time.Duration
	TailLines int
	// KeepLine says which log lines are kept; the others are dropped as
	// they are read, so memory holds only what a caller will judge. nil
	// keeps every line.
	KeepLine func(service, line string) bool
	// InFlight is how many kubelet requests run at once, all nodes
	// together; Timeout bounds each request; MaxBytes each JSON answer
	// and LogMaxBytes each log answer.
	InFlight    int
	Timeout     time.Duration
	MaxBytes    int64
	LogMaxBytes int64
	// CAFile is the CA of the kubelets' serving certificates on the
	// direct path; "" trusts the cluster's CA.
	CAFile string
	// Now is when "since" counts from; zero means time.Now().
	Now time.Time
	// Rest is the client config whose credentials are used; Read sets
	// it from the kubeconfig.
	Rest *rest.Config
}

func (o KubeletOptions) withDefaults() KubeletOptions {
	positiveOr(&o.InFlight, DefaultKubeletInFlight)
	positiveOr(&o.Timeout, DefaultKubeletTimeout)
	positiveOr(&o.MaxBytes, DefaultKubeletMaxBytes)
	positiveOr(&o.LogMaxBytes, DefaultLogMaxBytes)
	positiveOr(&o.Since, DefaultLogSince)
	positiveOr(&o.TailLines, DefaultTailLines)
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.Nodes == nil {
		o.Nodes = func(n *corev1.Node) bool { return n.Labels[corev1.LabelOSStable] == "windows" }
	}
	return o
}

// positiveOr sets *v to def when it is zero or negative: an unset bound.
func positiveOr[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// kubeletClient reads kubelets over one path.
type kubeletClient struct {
	o    KubeletOptions
	http *http.Client
	host string // the API server, for the proxy path
	sem  chan struct{}
}

func newKubeletClient(cfg *rest.Config, o KubeletOptions) (*kubeletClient, error) {
	c := &kubeletClient{o: o, sem: make(chan struct{}, o.InFlight), host: strings.TrimSuffix(cfg.Host, "/")}
	hc := rest.CopyConfig(cfg)
	switch o.Path {
	case PathProxy:
	case PathDirect:
		// The kubelet's serving certificate is not the API server's: keep
		// the credentials, change what the server is checked against.
		hc.TLSClientConfig.ServerName = ""
		if o.CAFile != "" {
			hc.TLSClientConfig.CAFile, hc.TLSClientConfig.CAData = o.CAFile, nil
		}
	default:
		return nil, fmt.Errorf("unknown kubelet access path %q: want %s or %s", o.Path, PathDirect, PathProxy)
	}
	hc.Timeout = 0 // each request has its own deadline
	client, err := rest.HTTPClientFor(hc)
	if err != nil {
		return nil, fmt.Errorf("building the kubelet client: %w", err)
	}
	c.http = client
	return c, nil
}

// base is the URL the kubelet's paths hang from.
func (c *kubeletClient) base(n *corev1.Node) (string, error) {
	if c.o.Path == PathProxy {
		return c.host + "/api/v1/nodes/" + url.PathEscape(n.Name) + "/proxy", nil
	}
	addr := nodeAddress(n)
	if addr == "" {
		return "", fmt.Errorf("node %s has no InternalIP, ExternalIP or Hostname address in status.addresses", n.Name)
	}
	port := int(n.Status.DaemonEndpoints.KubeletEndpoint.Port)
	if port == 0 {
		port = 10250
	}
	return "https://" + net.JoinHostPort(addr, strconv.Itoa(port)), nil
}

// nodeAddress is the address the API server would prefer with its
// default --kubelet-preferred-address-types, IPs first.
func nodeAddress(n *corev1.Node) string {
	for _, t := range []corev1.NodeAddressType{corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeExternalDNS} {
		for _, a := range n.Status.Addresses {
			if a.Type == t && a.Address != "" {
				return a.Address
			}
		}
	}
	return ""
}

// ReadKubelets reads the kubelets of the nodes o.Nodes picks. A node
// whose kubelet cannot be read gets its reasons in Unread; only a bad
// configuration is an error.
func ReadKubelets(ctx context.Context, cfg *rest.Config, nodes []*corev1.Node, o KubeletOptions) ([]*live.Kubelet, *live.KubeletAccess, error) {
	o = o.withDefaults()
	if cfg == nil {
		return nil, nil, fmt.Errorf("reading kubelets: no client config")
	}
	c, err := newKubeletClient(cfg, o)
	if err != nil {
		return nil, nil, err
	}
	var picked []*corev1.Node
	for _, n := range nodes {
		if o.Nodes(n) {
			picked = append(picked, n)
		}
	}
	out := make([]*live.Kubelet, len(picked))
	var wg sync.WaitGroup
	for i, n := range picked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = c.read(ctx, n)
		}()
	}
	wg.Wait()
	return out, &live.KubeletAccess{Path: o.Path, Nodes: len(picked)}, nil
}

// read reads one kubelet, endpoint after endpoint.
func (c *kubeletClient) read(ctx context.Context, n *corev1.Node) *live.Kubelet {
	k := &live.Kubelet{Node: n.Name}
	base, err := c.base(n)
	if err != nil {
		k.Unread = append(k.Unread, live.Unread{Endpoint: "/", Err: err.Error()})
		return k
	}
	var reads []func()
	if c.o.Configz {
		reads = append(reads, func() { c.readConfigz(ctx, base, k) })
	}
	if c.o.Stats {
		reads = append(reads, func() { c.readStats(ctx, base, k) })
	}
	// A log request refused (a missing nodes/log, the handler off) is
	// refused for every service alike: one finding per node, not one per
	// service.
	logsRefused := false
	for _, svc := range c.o.Services {
		reads = append(reads, func() {
			if logsRefused {
				return
			}
			before := len(k.Unread)
			c.readLogs(ctx, base, svc, k)
			if len(k.Unread) > before && !ofAnswer(k.Unread[len(k.Unread)-1]) {
				logsRefused = true
			}
		})
	}
	for i, read := range reads {
		read()
		// A kubelet that let one request time out is not asked again:
		// one timeout per node bounds the run.
		if n := len(k.Unread); n > 0 && strings.HasPrefix(k.Unread[n-1].Err, noAnswer) && i < len(reads)-1 {
			k.Unread = append(k.Unread, live.Unread{Endpoint: "/", Err: fmt.Sprintf("%d more endpoint(s) not asked: the kubelet did not answer in time", len(reads)-1-i)})
			break
		}
	}
	return k
}
