package loadgen

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/winkube/winkube/internal/webhook"
)

// server is `winkube webhook serve` run as a subprocess on 127.0.0.1.
type server struct {
	cmd      *exec.Cmd
	dir      string
	addr     string
	cas      *x509.CertPool // every CA of the run, as a caBundle spanning rotations
	pairs    []certPair     // the certificates to serve, in turn
	next     int            // the pair rotate writes next
	serial   string         // the serial of the certificate last written
	exited   chan struct{}
	exitCode int
	exitedAt time.Time
	cpu      time.Duration // user and system time, once exited
	logTail  *tail
}

// startServer writes a certificate to dir and starts the server on a port
// of 127.0.0.1 it picks itself; it returns once the server listens.
func startServer(ctx context.Context, cfg Config) (*server, error) {
	s := &server{dir: cfg.WorkDir, cas: x509.NewCertPool(), exited: make(chan struct{}), logTail: &tail{max: 40}}
	// Every certificate is made up front: the client's pool of CAs must
	// not change while connections use it.
	for range cfg.Rotations + 1 {
		ca, cert, key, err := webhook.GenerateCerts("winkube-webhook", "winkube-system", time.Hour, "127.0.0.1")
		if err != nil {
			return nil, err
		}
		s.cas.AppendCertsFromPEM(ca)
		s.pairs = append(s.pairs, certPair{cert, key})
	}
	if err := s.rotate(); err != nil {
		return nil, err
	}
	args := []string{"webhook", "serve", "--addr", "127.0.0.1:0",
		"--tls-cert", filepath.Join(s.dir, "tls.crt"), "--tls-key", filepath.Join(s.dir, "tls.key"),
		"--drain-delay", cfg.DrainDelay.String(), "--reload-interval", cfg.ReloadInterval.String()}
	s.cmd = exec.Command(cfg.Binary, args...)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cfg.Binary, err)
	}
	listening := make(chan string, 1)
	logsRead := make(chan struct{})
	go func() {
		defer close(logsRead)
		s.readLogs(stderr, cfg.ServerLog, listening)
	}()
	go func() {
		<-logsRead // Wait closes the pipe: read it to the end first
		s.cmd.Wait()
		s.exitedAt = time.Now()
		s.exitCode = s.cmd.ProcessState.ExitCode()
		s.cpu = s.cmd.ProcessState.UserTime() + s.cmd.ProcessState.SystemTime()
		close(s.exited)
	}()
	select {
	case s.addr = <-listening:
		return s, nil
	case <-s.exited:
		return nil, fmt.Errorf("the server exited with code %d before listening:\n%s", s.exitCode, s.logTail)
	case <-ctx.Done():
		s.kill()
		return nil, ctx.Err()
	}
}

// readLogs copies the server's JSON log lines to w and reports the
// address from its "serving" line.
func (s *server) readLogs(r io.Reader, w io.Writer, listening chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		s.logTail.add(string(line))
		if w != nil {
			fmt.Fprintf(w, "%s\n", line)
		}
		var entry struct{ Msg, Addr string }
		if json.Unmarshal(line, &entry) == nil && entry.Msg == "serving admission webhook" && entry.Addr != "" {
			select {
			case listening <- entry.Addr:
			default:
			}
		}
	}
}

type certPair struct{ cert, key []byte }

// rotate writes the next certificate and key, each file replaced at once,
// as a Secret volume or cert-manager rewrites them.
func (s *server) rotate() error {
	if s.next >= len(s.pairs) {
		return fmt.Errorf("no certificate left for rotation %d", s.next)
	}
	p := s.pairs[s.next]
	s.next++
	pair, err := tls.X509KeyPair(p.cert, p.key)
	if err != nil {
		return err
	}
	s.serial = pair.Leaf.SerialNumber.String()
	for _, f := range []struct {
		name string
		data []byte
	}{{"tls.key", p.key}, {"tls.crt", p.cert}} {
		path := filepath.Join(s.dir, f.name)
		if err := os.WriteFile(path+".new", f.data, 0o600); err != nil {
			return err
		}
		if err := os.Rename(path+".new", path); err != nil {
			return err
		}
	}
	return nil
}

// served returns the serial of the certificate a new connection gets.
func (s *server) served() (string, error) {
	conn, err := tls.Dial("tcp", s.addr, &tls.Config{RootCAs: s.cas, ServerName: "127.0.0.1"})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String(), nil
}

func (s *server) terminate() error { return s.cmd.Process.Signal(syscall.SIGTERM) }

// kill ends the subprocess this package started, if it still runs.
func (s *server) kill() {
	select {
	case <-s.exited:
	default:
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// tail keeps the last lines of the server's log for error messages.
type tail struct {
	mu    sync.Mutex
	lines []string
	max   int
}

func (t *tail) add(l string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, l)
	if len(t.lines) > t.max {
		t.lines = t.lines[1:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := ""
	for _, l := range t.lines {
		out += "    " + l + "\n"
	}
	return out
}
