package webhook

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/winkube/winkube/internal/rule"
)

// Options configures a server.
type Options struct {
	Addr       string // listen address, e.g. ":8443" or "127.0.0.1:0"
	CertFile   string // TLS serving certificate and key, reloaded when the files change
	KeyFile    string
	ConfigPath string // versioned WebhookConfig file, reloaded when it changes; "" = defaults
	Logger     *slog.Logger

	// MaxRequestBytes caps a request body; 0 means 3 MiB, like the API server.
	MaxRequestBytes int64
	// ReadTimeout and WriteTimeout bound one request; 0 means 10s each.
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	// ShutdownTimeout bounds the wait for requests in flight once the
	// listener is closed; 0 means 25s (the drain and this stay under the
	// kubelet's default 30s termination grace period).
	ShutdownTimeout time.Duration
	// DrainDelay is how long Run keeps serving after ctx is done, with
	// /readyz failing and every response closing its connection, before it
	// stops accepting connections: Service endpoints take a moment to drop
	// a terminating pod. 0 means 2s; negative means none.
	DrainDelay time.Duration
	// ReloadInterval is how often the config and certificate files are
	// polled for changes; 0 means 1s.
	ReloadInterval time.Duration

	// Known is every rule winkube can report, of every family
	// (catalogue.Rules(), which the CLI passes): the config may name any
	// of them, as .winkube.yaml may, and one of a family the webhook does
	// not report is refused with its family named. nil means the lint
	// suite, the rules the webhook runs.
	Known []*rule.Rule

	// extraRules are appended to the configured rules (tests inject
	// panicking and blocking rules through it); drainUntil, when set, ends
	// the drain instead of DrainDelay.
	extraRules []*rule.Rule
	drainUntil <-chan struct{}
}

// Server is an admission webhook server. Create it with New.
type Server struct {
	impl *server
}

// New validates opts, loads the config and certificate, and returns a server
// ready to Run. A missing or invalid config or certificate is an error here;
// later bad versions are logged and the previous good one is kept.
func New(opts Options) (*Server, error) {
	impl, err := newServer(opts)
	if err != nil {
		return nil, err
	}
	return &Server{impl: impl}, nil
}

// Handler serves /validate, /mutate, /healthz, /readyz and /metrics.
func (s *Server) Handler() http.Handler { return s.impl.handler }

// Run serves TLS until ctx is done, then shuts down gracefully: it drains
// for DrainDelay, stops accepting connections and waits for in-flight
// requests to finish. It returns nil when they all did.
func (s *Server) Run(ctx context.Context) error { return s.impl.run(ctx) }

// Reload reads the config and certificate files now (what SIGHUP asks
// for). A bad version is logged and returned, and the previous one stays
// in use: the server never stops over a reload.
func (s *Server) Reload() error { return s.impl.reload() }

// Addr is the bound address once Run has started listening (useful for
// ":0"); it is nil before that.
func (s *Server) Addr() net.Addr { return s.impl.addr() }

// GenerateCerts returns a self-signed CA and a serving certificate for
// service.namespace.svc (plus the short and cluster.local names and any
// extraSANs, which may be IP addresses), for tests and first installs.
// validFor 0 means DefaultCertValidity (a year).
func GenerateCerts(service, namespace string, validFor time.Duration, extraSANs ...string) (caPEM, certPEM, keyPEM []byte, err error) {
	return generateCerts(service, namespace, validFor, extraSANs...)
}
