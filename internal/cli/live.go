package cli

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/live/fetch"
)

// liveFlags are kubectl's connection flags, shared by audit and doctor,
// and how the Windows nodes' kubelets are read.
type liveFlags struct {
	opts           fetch.Options
	requestTimeout string
	nodeReads      string
	kubeletCA      string
}

// Values of --node-reads.
const nodeReadsOff = "off"

// kubeletOptions returns what to read of the kubelets, nil when
// --node-reads is off.
func (l *liveFlags) kubeletOptions() *fetch.KubeletOptions {
	if l.nodeReads == nodeReadsOff {
		return nil
	}
	return &fetch.KubeletOptions{Path: l.nodeReads, CAFile: l.kubeletCA}
}

// noteKubelets tells on stderr how the kubelets were read and what could
// not be read.
func noteKubelets(s Streams, quiet bool, snap *live.Snapshot) {
	if quiet || snap.KubeletAccess == nil {
		return
	}
	how := "directly (nodes/configz, nodes/stats, nodes/log)"
	if snap.KubeletAccess.Path == fetch.PathProxy {
		how = "through the API server's node proxy (nodes/proxy)"
	}
	unread := 0
	for _, k := range snap.Kubelets {
		unread += len(k.Unread)
	}
	fmt.Fprintf(s.Err, "read the kubelets of %d Windows node(s) %s; %d endpoint read(s) failed (reported as kubelet-unreadable)\n", snap.KubeletAccess.Nodes, how, unread)
}

func (l *liveFlags) addFlags(f *pflag.FlagSet) {
	f.StringVar(&l.opts.Kubeconfig, "kubeconfig", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, or the in-cluster service account)")
	f.StringVar(&l.opts.Context, "context", "", "kubeconfig context to use")
	f.StringVarP(&l.opts.Namespace, "namespace", "n", "", "read only this namespace")
	f.BoolVarP(&l.opts.AllNamespaces, "all-namespaces", "A", false, "read every namespace")
	f.Float32Var(&l.opts.QPS, "qps", fetch.DefaultQPS, "API requests per second (client-go's default is 5)")
	f.IntVar(&l.opts.Burst, "burst", fetch.DefaultBurst, "API request burst (client-go's default is 10)")
	f.StringVar(&l.requestTimeout, "request-timeout", fetch.DefaultRequestTimeout.String(),
		"the length of time to wait before giving up on a single server request, as kubectl's flag: a duration (1s, 2m) or seconds; 0 waits forever")
	f.StringVar(&l.nodeReads, "node-reads", nodeReadsOff, "read the Windows nodes' kubelets: off, direct (to each kubelet's port; needs get on nodes/configz, nodes/stats, nodes/log) or proxy (through the API server; needs nodes/proxy, close to node admin)")
	f.StringVar(&l.kubeletCA, "kubelet-ca", "", "CA file of the kubelets' serving certificates for --node-reads=direct (default: the cluster's CA)")
}

func (l *liveFlags) validate() error {
	if l.opts.AllNamespaces && l.opts.Namespace != "" {
		return usagef("--namespace and --all-namespaces cannot be used together")
	}
	switch l.nodeReads {
	case nodeReadsOff, fetch.PathDirect, fetch.PathProxy:
	default:
		return usagef("--node-reads must be off, direct or proxy, not %q", l.nodeReads)
	}
	if l.kubeletCA != "" && l.nodeReads != fetch.PathDirect {
		return usagef("--kubelet-ca is for --node-reads=direct")
	}
	if l.opts.QPS <= 0 || l.opts.Burst <= 0 {
		return usagef("--qps and --burst must be positive")
	}
	d, err := fetch.ParseRequestTimeout(l.requestTimeout)
	if err != nil {
		return usagef("--request-timeout %q: %v", l.requestTimeout, err)
	}
	l.opts.RequestTimeout = d
	return nil
}

// readSnapshot reads the cluster with opts, showing progress on stderr
// when it is a terminal.
func readSnapshot(ctx context.Context, s Streams, quiet bool, opts fetch.Options) (*live.Snapshot, error) {
	opts.Progress = progress(s, quiet)
	defer endProgress(s, opts.Progress)
	return fetch.Read(ctx, opts)
}

// progress returns a status printer for stderr when stderr is a
// terminal and status is not silenced, else nil.
func progress(s Streams, quiet bool) func(string) {
	if quiet || s.Err != os.Stderr || !isTerminal(os.Stderr) {
		return nil
	}
	return func(msg string) { fmt.Fprintf(s.Err, "\r\x1b[K%s", msg) }
}

// endProgress clears the status line.
func endProgress(s Streams, p func(string)) {
	if p != nil {
		fmt.Fprint(s.Err, "\r\x1b[K")
	}
}

// auditMemoryLimit keeps a large read under the audit CronJob's 1Gi
// memory limit (deploy/audit-cronjob.yaml): past it the garbage collector
// works harder instead of the heap growing. GOMEMLIMIT overrides it.
const auditMemoryLimit = 768 << 20

// doctorMemoryLimit is doctor's soft limit: doctor is run by hand, not by
// the CronJob, and on the benchmark cluster (docs/performance.md) 1 GiB
// instead of 768 MiB cut its client CPU from 6.6-7.8 s to 5.0-6.1 s, a
// quarter of it garbage collection, at 840-850 MiB peak RSS.
const doctorMemoryLimit = 1 << 30

// limitMemory sets the soft memory limit unless GOMEMLIMIT does.
func limitMemory(limit int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}
