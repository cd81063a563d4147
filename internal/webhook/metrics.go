package webhook

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Request results, the result label of the requests counter.
const (
	resultAllowed = "allowed" // nothing to say
	resultWarned  = "warned"  // allowed with warnings
	resultMutated = "mutated" // allowed with a patch
	resultDenied  = "denied"
	resultSkipped = "skipped" // not checked: excluded, other kind, ...
	resultInvalid = "invalid" // a malformed review (HTTP 4xx)
	resultError   = "error"   // the webhook failed (HTTP 500)
)

// LatencyBuckets are the request duration histogram's buckets, in
// seconds: fine from 100µs to a few milliseconds, where a healthy webhook
// answers, then coarse up to the API server's 30s timeout.
var LatencyBuckets = []float64{
	0.0001, 0.00015, 0.0002, 0.0003, 0.0004, 0.0005, 0.0006, 0.0008,
	0.001, 0.00125, 0.0015, 0.00175, 0.002, 0.0025, 0.003, 0.004, 0.005, 0.0075,
	0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
}

// Metric names, for dashboards and the load generator.
const (
	MetricRequests  = "winkube_webhook_requests_total"
	MetricDuration  = "winkube_webhook_request_duration_seconds"
	MetricDenials   = "winkube_webhook_denials_total"
	MetricMutations = "winkube_webhook_mutations_total"
	MetricWarnings  = "winkube_webhook_warnings_total"
	MetricReloads   = "winkube_webhook_reloads_total"
)

type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	denials   *prometheus.CounterVec
	mutations *prometheus.CounterVec
	warnings  *prometheus.CounterVec
	reloads   *prometheus.CounterVec
}

// newMetrics registers the server's metrics in a registry of its own, so
// that servers in one process (tests) do not share counters.
func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRequests,
			Help: "Admission requests by endpoint (validate, mutate), object kind and result (allowed, warned, mutated, denied, skipped, invalid, error)."},
			[]string{"endpoint", "kind", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: MetricDuration,
			Help: "Time from the request's arrival to its response being written, by endpoint.", Buckets: LatencyBuckets},
			[]string{"endpoint"}),
		denials: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricDenials,
			Help: "Findings that denied a request, by rule."}, []string{"rule"}),
		mutations: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricMutations,
			Help: "Fixes applied by /mutate, by rule."}, []string{"rule"}),
		warnings: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricWarnings,
			Help: "Findings returned as warnings, by rule."}, []string{"rule"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricReloads,
			Help: "Reloads of the config and certificate files, by file and result (success, failure)."}, []string{"file", "result"}),
	}
	m.reg.MustRegister(m.requests, m.duration, m.denials, m.mutations, m.warnings, m.reloads,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// kindLabel bounds the kind label to the kinds the webhook checks.
func kindLabel(k metav1.GroupVersionKind) string {
	if supportedKind(k) {
		return k.Kind
	}
	return "other"
}
