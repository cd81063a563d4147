package fetch

import (
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Defaults for Options. client-go's own defaults (5 queries per second,
// bursts of 10) would make a read of a large cluster wait on the client.
const (
	DefaultQPS      = 100
	DefaultBurst    = 200
	DefaultPageSize = 5000
	// DefaultRequestTimeout bounds each request (kubectl
	// --request-timeout; kubectl's own default, 0, waits forever, which a
	// hung API server or proxy turns into a hang).
	DefaultRequestTimeout = 60 * time.Second
	// DefaultEventPageSize is larger: the API server keeps no cache of
	// events, so every page is a range read of etcd that also counts the
	// keys left after it; small pages make reading n events cost about
	// n²/page in etcd. 10,000 is the most the API server itself asks etcd
	// for at once.
	DefaultEventPageSize = 10000
)

// Options says which cluster to read and how.
type Options struct {
	Kubeconfig string // "" means $KUBECONFIG, ~/.kube/config, or in-cluster
	Context    string
	// Namespace limits namespaced kinds to one namespace; "" with
	// AllNamespaces false means the kubeconfig context's namespace.
	Namespace     string
	AllNamespaces bool
	QPS           float32
	Burst         int
	PageSize      int64
	// RequestTimeout bounds every request to the API server, as kubectl's
	// --request-timeout does (rest.Config.Timeout): 0 means no limit.
	RequestTimeout time.Duration
	// EventPageSize is the page size of the events (see
	// DefaultEventPageSize).
	EventPageSize int64
	// NoEvents skips the events (audit judges objects, not events).
	NoEvents bool
	// EventSelector is a field selector for the events, e.g. leaving out
	// the routine reasons a diagnosis never reads.
	EventSelector string
	// EventsAbout, when set, says of each pod read whether its events are
	// wanted: only theirs are read, none when no pod is. It is asked as
	// the pods' pages arrive, so that the events of the pods' namespaces
	// are listed while the rest is still being read. Without it every
	// event is read.
	EventsAbout func(*corev1.Pod) bool
	// PerPodEvents is how many pods of EventsAbout are read one pod at a
	// time before their namespaces are listed instead; 0 means
	// DefaultPerPodEvents, a negative number never.
	PerPodEvents int
	// Kubelets, when set, also reads the kubelets of the nodes it picks
	// (ReadKubelets), while the other kinds are listed.
	Kubelets *KubeletOptions
	// Progress, when set, receives one status line per kind read (the CLI
	// sets it only when stderr is a terminal).
	Progress func(string)
}

// Config resolves the client config and the namespace to read ("" for
// all), as kubectl does: the flags, then the kubeconfig, then the
// in-cluster service account.
func Config(o Options) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.Kubeconfig != "" {
		rules.ExplicitPath = o.Kubeconfig
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: o.Context}
	if o.Namespace != "" {
		overrides.Context.Namespace = o.Namespace
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("loading the cluster config: %w (set --kubeconfig or KUBECONFIG, or run in a pod with a service account)", err)
	}
	ns := ""
	if !o.AllNamespaces {
		if ns, _, err = cc.Namespace(); err != nil {
			return nil, "", fmt.Errorf("reading the namespace of the context: %w", err)
		}
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	if cfg.QPS == 0 {
		cfg.QPS = DefaultQPS
	}
	if cfg.Burst == 0 {
		cfg.Burst = DefaultBurst
	}
	// Every kind read is a built-in type the API serves in protobuf.
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.UserAgent = "winkube"
	cfg.Timeout = o.RequestTimeout
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return boundedBody{rt} })
	return cfg, ns, nil
}

// ParseRequestTimeout reads a --request-timeout value as kubectl does
// (clientcmd.ParseTimeout: seconds, or a duration such as 1s or 2m; 0
// waits forever). A negative duration, which would time out every
// request at once, is refused.
func ParseRequestTimeout(s string) (time.Duration, error) {
	d, err := clientcmd.ParseTimeout(s)
	if err == nil && d < 0 {
		err = fmt.Errorf("timeout must not be negative")
	}
	return d, err
}
