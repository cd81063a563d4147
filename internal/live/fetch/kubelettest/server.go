package kubelettest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Node is what one fake kubelet answers.
type Node struct {
	Configz, Stats []byte
	// Logs are the node log query's answers by service; a service with
	// none gets "log not found for SERVICE", as the kubelet writes.
	Logs map[string][]byte
	// FileLogs answers a query with options (sinceTime, tailLines) as the
	// kubelet does for a service logging to a file: it refuses them.
	FileLogs bool
	// Status answers the paths starting with a key with that status code.
	Status map[string]int
	// Hang answers nothing until the client goes away.
	Hang bool
	// HugeLog streams this many bytes of log lines for every log query.
	HugeLog int64
	// Delay is waited before every answer (a kubelet across a network).
	Delay time.Duration
}

// Authorizer decides a request as the kubelet's webhook authorizer does:
// subresources are the nodes subresources tried in order. It returns the
// HTTP status to answer with (0 to serve) and the message.
type Authorizer func(r *http.Request, subresources []string) (status int, msg string)

// Server is a running fake kubelet.
type Server struct {
	// Addr is host:port it listens on.
	Addr string
	srv  *http.Server
	ln   net.Listener
	// requests in flight now, and the most seen at once, across every
	// Server sharing the counter.
	flight *Flight
}

// Flight counts requests in flight across servers.
type Flight struct{ now, max atomic.Int64 }

// Max is the most requests seen in flight at once.
func (f *Flight) Max() int64 { return f.max.Load() }

func (f *Flight) enter() {
	n := f.now.Add(1)
	for {
		m := f.max.Load()
		if n <= m || f.max.CompareAndSwap(m, n) {
			return
		}
	}
}

func (f *Flight) leave() { f.now.Add(-1) }

// Start serves node on addr ("192.0.2.2:0") with cert; clientCAs, when
// set, verifies client certificates (the API server's kubelet client).
func Start(addr string, cert tls.Certificate, clientCAs *x509.CertPool, node *Node, auth Authorizer, flight *Flight) (*Server, error) {
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCAs != nil {
		cfg.ClientCAs, cfg.ClientAuth = clientCAs, tls.VerifyClientCertIfGiven
	}
	ln, err := tls.Listen("tcp", addr, cfg)
	if err != nil {
		return nil, fmt.Errorf("fake kubelet: listening on %s: %w", addr, err)
	}
	if flight == nil {
		flight = &Flight{}
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln, flight: flight}
	s.srv = &http.Server{Handler: s.handler(node, auth), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// subresources are those the kubelet authorizes a path with
// (kubernetes/kubernetes v1.36.3 pkg/kubelet/server/auth.go, with
// fine-grained authorization on).
func subresources(path string) []string {
	switch {
	case path == "/configz":
		return []string{"configz", "proxy"}
	case strings.HasPrefix(path, "/stats"):
		return []string{"stats"}
	case strings.HasPrefix(path, "/logs"):
		return []string{"log"}
	}
	return []string{"proxy"}
}

func (s *Server) handler(node *Node, auth Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.flight.enter()
		defer s.flight.leave()
		if auth != nil {
			if code, msg := auth(r, subresources(r.URL.Path)); code != 0 {
				http.Error(w, msg, code)
				return
			}
		}
		for prefix, code := range node.Status {
			if strings.HasPrefix(r.URL.Path, prefix) {
				http.Error(w, http.StatusText(code), code)
				return
			}
		}
		if node.Delay > 0 {
			select {
			case <-time.After(node.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if node.Hang {
			<-r.Context().Done()
			return
		}
		switch {
		case r.URL.Path == "/configz" && node.Configz != nil:
			w.Header().Set("Content-Type", "application/json")
			w.Write(node.Configz)
		case r.URL.Path == "/stats/summary" && node.Stats != nil:
			w.Header().Set("Content-Type", "application/json")
			w.Write(node.Stats)
		case strings.HasPrefix(r.URL.Path, "/logs/"):
			serveLogs(w, r, node)
		default:
			http.NotFound(w, r)
		}
	})
}

func serveLogs(w http.ResponseWriter, r *http.Request, node *Node) {
	q := r.URL.Query()
	svc := q.Get("query")
	w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
	if node.HugeLog > 0 {
		line := []byte(`I1127 03:58:01.000000    4712 kubelet.go:1] "a line of a log that never ends" ` + strings.Repeat("x", 100) + "\n")
		for n := int64(0); n < node.HugeLog && r.Context().Err() == nil; n += int64(len(line)) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
		return
	}
	body, ok := node.Logs[svc]
	if !ok {
		fmt.Fprintf(w, "\nlog not found for %s\n", svc)
		return
	}
	if node.FileLogs && (q.Has("sinceTime") || q.Has("tailLines")) {
		fmt.Fprintf(w, "\noptions present and query resolved to log files for %v\ntry without specifying options\n", []string{svc})
		return
	}
	w.Write(body)
}
