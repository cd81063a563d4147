package cli

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/live/fetch"
)

// liveFlags are kubectl's connection flags, shared by audit and doctor.
type liveFlags struct {
	opts           fetch.Options
	requestTimeout string
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
}

func (l *liveFlags) validate() error {
	if l.opts.AllNamespaces && l.opts.Namespace != "" {
		return usagef("--namespace and --all-namespaces cannot be used together")
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
