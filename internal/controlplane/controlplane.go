package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// KubernetesVersion is the version of kube-apiserver and kube-scheduler the
// harness runs. It must match hack/build-controlplane.sh.
const KubernetesVersion = "v1.36.3"

// EnvBinDir names a directory holding prebuilt etcd, kube-apiserver and
// kube-scheduler binaries; when set, nothing is built.
const EnvBinDir = "WINKUBE_CONTROLPLANE_BIN"

// Options configures [Start]. The zero value is a good default.
type Options struct {
	// BinDir holds etcd, kube-apiserver and kube-scheduler. Empty means
	// $WINKUBE_CONTROLPLANE_BIN, else the build cache (building if needed).
	BinDir string

	// ExtraAPIServerFlags are appended to kube-apiserver's command line,
	// after the harness's own flags, e.g. "--feature-gates=Foo=true". For a
	// scalar flag the later value wins; list flags such as
	// --disable-admission-plugins accumulate.
	ExtraAPIServerFlags []string

	// NoScheduler starts only etcd and kube-apiserver.
	NoScheduler bool
	// SchedulerQPS and SchedulerBurst are the scheduler's client rate limits
	// (clientConnection.qps/burst); defaults 5000 and 10000.
	SchedulerQPS   float32
	SchedulerBurst int32
	// SchedulerConfigExtra is YAML appended verbatim at the top level of the
	// generated KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1),
	// e.g. "profiles:\n- schedulerName: default-scheduler\n  ...". It must not
	// repeat clientConnection or leaderElection, which the harness sets.
	SchedulerConfigExtra string
	// ExtraSchedulerFlags are appended to kube-scheduler's command line.
	ExtraSchedulerFlags []string

	// StartTimeout bounds starting the processes and waiting for readiness
	// (not building binaries). Default 2 minutes.
	StartTimeout time.Duration
}

// ControlPlane is a running etcd + kube-apiserver (+ kube-scheduler).
type ControlPlane struct {
	// Config is an admin client config for the API server.
	Config *rest.Config
	// Client is a clientset built from Config.
	Client kubernetes.Interface
	// KubeconfigPath is an admin kubeconfig file (valid until Stop).
	KubeconfigPath string
	// Dir is the temporary directory holding data, config and logs.
	Dir string
	// BinDir is where the binaries came from.
	BinDir string

	procs    []*proc
	stopOnce sync.Once
}

type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has exited
	err     error         // Wait result, valid after done
}

// StartT starts a control plane for a test, failing the test loudly (never
// skipping) if that is impossible, and stops it in t.Cleanup. If the test
// failed, the tail of each process log is logged first.
func StartT(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cp, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("controlplane: FAILED TO START the real Kubernetes %s control plane "+
			"(etcd, kube-apiserver, kube-scheduler); tests comparing against it cannot run.\n"+
			"Build the binaries with `make controlplane` (or set %s to a directory holding them).\n%v",
			KubernetesVersion, EnvBinDir, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range cp.procs {
				t.Logf("controlplane: tail of %s log (%s):\n%s", p.name, p.logPath, tail(p.logPath, 30))
			}
		}
		cp.Stop()
	})
	return cp
}

// Start builds (if needed) and starts etcd, kube-apiserver and kube-scheduler
// on 127.0.0.1 in a fresh temporary directory, and waits until they are ready.
// The caller must call Stop.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	binDir, err := ensureBinaries(ctx, opts.BinDir)
	if err != nil {
		return nil, err
	}
	if opts.SchedulerQPS == 0 {
		opts.SchedulerQPS = 5000
	}
	if opts.SchedulerBurst == 0 {
		opts.SchedulerBurst = 10000
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	// Free ports are picked before the processes bind them; another process
	// can take one in between, so retry a couple of times on bind failures.
	for attempt := 1; ; attempt++ {
		cp, err := start(ctx, opts, binDir)
		if err == nil {
			return cp, nil
		}
		if attempt >= 3 || ctx.Err() != nil || !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
	}
}

func start(ctx context.Context, opts Options, binDir string) (_ *ControlPlane, retErr error) {
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	dir, err := os.MkdirTemp("", "winkube-controlplane-")
	if err != nil {
		return nil, fmt.Errorf("controlplane: %w", err)
	}
	cp := &ControlPlane{Dir: dir, BinDir: binDir}
	defer func() {
		if retErr != nil {
			cp.Stop()
		}
	}()

	ports, err := freePorts(4)
	if err != nil {
		return nil, fmt.Errorf("controlplane: picking free ports: %w", err)
	}
	etcdClientPort, etcdPeerPort, apiPort, schedPort := ports[0], ports[1], ports[2], ports[3]

	// Credentials: a CA and serving cert for the API server, a service
	// account signing key, and a static admin token.
	caPEM, err := writePKI(dir)
	if err != nil {
		return nil, fmt.Errorf("controlplane: generating certificates: %w", err)
	}
	tokenBytes := make([]byte, 16)
	if _, err := rand.Read(tokenBytes); err != nil {
		return nil, err
	}
	token := hex.EncodeToString(tokenBytes)
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"),
		[]byte(token+`,admin,admin,"system:masters"`+"\n"), 0o600); err != nil {
		return nil, err
	}

	// etcd.
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdClientPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(etcdPeerPort)
	if err := cp.spawn("etcd", filepath.Join(binDir, "etcd"),
		"--name=default",
		"--data-dir="+filepath.Join(dir, "etcd-data"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	); err != nil {
		return nil, err
	}
	etcdHealthy := func(c *http.Client) (bool, string) {
		resp, err := c.Get(etcdURL + "/health")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"health":"true"`)), string(body)
	}
	if err := cp.waitFor(ctx, "etcd /health", cp.procs[0], http.DefaultClient, etcdHealthy); err != nil {
		return nil, err
	}

	// kube-apiserver.
	apiURL := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	apiArgs := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--tls-cert-file=" + filepath.Join(dir, "apiserver.crt"),
		"--tls-private-key-file=" + filepath.Join(dir, "apiserver.key"),
		"--token-auth-file=" + filepath.Join(dir, "tokens.csv"),
		"--authorization-mode=AlwaysAllow",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--enable-admission-plugins=RuntimeClass,MutatingAdmissionWebhook,ValidatingAdmissionWebhook",
		"--disable-admission-plugins=TaintNodesByCondition,ServiceAccount",
		"--allow-privileged=true",
		// Endpoints may not be loopback addresses, and nothing routes to
		// the kubernetes service here anyway.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
	}
	apiArgs = append(apiArgs, opts.ExtraAPIServerFlags...)
	if err := cp.spawn("kube-apiserver", filepath.Join(binDir, "kube-apiserver"), apiArgs...); err != nil {
		return nil, err
	}

	cfg := &rest.Config{
		Host:            apiURL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
		QPS:             1000,
		Burst:           2000,
	}
	caPool := x509.NewCertPool()
	caPool.AppendCertsFromPEM(caPEM)
	apiHTTP := &http.Client{Timeout: 5 * time.Second, Transport: &bearerTransport{token: token,
		rt: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: caPool}}}}
	readyz := func(url string) func(c *http.Client) (bool, string) {
		return func(c *http.Client) (bool, string) {
			resp, err := c.Get(url)
			if err != nil {
				return false, err.Error()
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return resp.StatusCode == http.StatusOK, string(body)
		}
	}
	if err := cp.waitFor(ctx, "kube-apiserver /readyz", cp.procs[1], apiHTTP, readyz(apiURL+"/readyz?verbose")); err != nil {
		return nil, err
	}
	// The "default" namespace is created by a bootstrap controller shortly
	// after the server is ready; tests may rely on it.
	if err := cp.waitFor(ctx, "namespace default", cp.procs[1], apiHTTP, readyz(apiURL+"/api/v1/namespaces/default")); err != nil {
		return nil, err
	}

	cp.KubeconfigPath = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(cp.KubeconfigPath, []byte(kubeconfig(apiURL, caPEM, token)), 0o600); err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("controlplane: client: %w", err)
	}
	cp.Config, cp.Client = cfg, client

	if opts.NoScheduler {
		return cp, nil
	}

	// kube-scheduler.
	schedCfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: %g
  burst: %d
leaderElection:
  leaderElect: false
%s`, cp.KubeconfigPath, opts.SchedulerQPS, opts.SchedulerBurst, opts.SchedulerConfigExtra)
	schedCfgPath := filepath.Join(dir, "kube-scheduler.yaml")
	if err := os.WriteFile(schedCfgPath, []byte(schedCfg), 0o600); err != nil {
		return nil, err
	}
	schedArgs := []string{
		"--config=" + schedCfgPath,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(schedPort),
		"--authentication-kubeconfig=" + cp.KubeconfigPath,
		"--authorization-kubeconfig=" + cp.KubeconfigPath,
	}
	schedArgs = append(schedArgs, opts.ExtraSchedulerFlags...)
	if err := cp.spawn("kube-scheduler", filepath.Join(binDir, "kube-scheduler"), schedArgs...); err != nil {
		return nil, err
	}
	// The scheduler serves a self-signed certificate; this is a loopback
	// readiness probe only.
	schedHTTP := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback probe
	schedURL := "https://127.0.0.1:" + strconv.Itoa(schedPort) + "/readyz?verbose"
	if err := cp.waitFor(ctx, "kube-scheduler /readyz", cp.procs[2], schedHTTP, readyz(schedURL)); err != nil {
		return nil, err
	}
	return cp, nil
}

// Stop kills every process the control plane started (by recorded PID),
// waits for them to exit and removes the temporary directory. It is safe to
// call more than once.
func (cp *ControlPlane) Stop() {
	cp.stopOnce.Do(func() {
		for i := len(cp.procs) - 1; i >= 0; i-- {
			p := cp.procs[i]
			kill(p.cmd.Process)
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
			}
		}
		if cp.Dir != "" {
			_ = os.RemoveAll(cp.Dir)
		}
	})
}

// LogPath returns the path of a process's combined stdout/stderr log
// ("etcd", "kube-apiserver" or "kube-scheduler"); valid until Stop.
func (cp *ControlPlane) LogPath(name string) string {
	return filepath.Join(cp.Dir, name+".log")
}

// spawn starts a process with its output in <dir>/<name>.log and records its
// PID in <dir>/pids.
func (cp *ControlPlane) spawn(name, bin string, args ...string) error {
	logPath := cp.LogPath(name)
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = cp.Dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("controlplane: starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	cp.procs = append(cp.procs, p)
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	f, err := os.OpenFile(filepath.Join(cp.Dir, "pids"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "%s %d\n", name, cmd.Process.Pid)
	return err
}

// waitFor polls check every 100ms until it reports ready, the process exits,
// or ctx ends. Errors carry the tail of the process log.
func (cp *ControlPlane) waitFor(ctx context.Context, what string, p *proc, c *http.Client,
	check func(*http.Client) (bool, string)) error {
	start := time.Now()
	last := ""
	for {
		ok, detail := check(c)
		if ok {
			return nil
		}
		last = detail
		select {
		case <-p.done:
			return fmt.Errorf("controlplane: %s exited (%v) while waiting for %s; last probe: %s\n--- tail of %s ---\n%s",
				p.name, p.err, what, strings.TrimSpace(last), p.logPath, tail(p.logPath, 40))
		case <-ctx.Done():
			return fmt.Errorf("controlplane: timed out after %s waiting for %s (%v); last probe: %s\n--- tail of %s ---\n%s",
				time.Since(start).Round(time.Millisecond), what, ctx.Err(), strings.TrimSpace(last), p.logPath, tail(p.logPath, 40))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

type bearerTransport struct {
	token string
	rt    http.RoundTripper
}

func (b *bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(req)
}

// ensureBinaries returns a directory holding etcd, kube-apiserver and
// kube-scheduler, building them into the cache if needed.
func ensureBinaries(ctx context.Context, binDir string) (string, error) {
	names := []string{"etcd", "kube-apiserver", "kube-scheduler"}
	missing := func(dir string) []string {
		var m []string
		for _, n := range names {
			if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				m = append(m, n)
			}
		}
		return m
	}
	explicit, source := binDir, "Options.BinDir"
	if explicit == "" {
		explicit, source = os.Getenv(EnvBinDir), "$"+EnvBinDir
	}
	if explicit != "" {
		if m := missing(explicit); len(m) > 0 {
			return "", fmt.Errorf("controlplane: %s=%s lacks %s", source, explicit, strings.Join(m, ", "))
		}
		return explicit, nil
	}

	cache := os.Getenv("WINKUBE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("controlplane: no WINKUBE_CACHE and no home directory: %w", err)
		}
		cache = filepath.Join(home, ".cache", "winkube")
	}
	cached := filepath.Join(cache, "controlplane", KubernetesVersion, "bin")
	if len(missing(cached)) == 0 {
		return cached, nil
	}

	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("controlplane: binaries missing from %s and cannot find the build script: %w", cached, err)
	}
	script := filepath.Join(root, "hack", "build-controlplane.sh")
	fmt.Fprintf(os.Stderr, "controlplane: binaries missing from %s; running %s (a cold build takes several minutes)\n", cached, script)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("controlplane: %s failed: %v\n--- tail of its stderr ---\n%s",
			script, err, tailLines(stderr.String(), 40))
	}
	out := strings.Fields(stdout.String())
	if len(out) == 0 {
		return "", fmt.Errorf("controlplane: %s printed no bin directory", script)
	}
	dir := out[len(out)-1]
	if m := missing(dir); len(m) > 0 {
		return "", fmt.Errorf("controlplane: %s succeeded but %s lacks %s", script, dir, strings.Join(m, ", "))
	}
	return dir, nil
}

// moduleRoot walks up from the working directory (a package directory when
// run by go test) to the directory with go.mod and hack/build-controlplane.sh.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if fileExists(filepath.Join(d, "go.mod")) && fileExists(filepath.Join(d, "hack", "build-controlplane.sh")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod with hack/build-controlplane.sh above %s", dir)
		}
		d = parent
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writePKI writes apiserver.crt/.key (signed by a fresh CA, valid for
// 127.0.0.1 and localhost) and the service-account RSA key pair sa.key/sa.pub
// into dir, and returns the CA certificate PEM.
func writePKI(dir string) ([]byte, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "winkube-controlplane-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	srvKeyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	saPubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	files := map[string][]byte{
		"ca.crt":        caPEM,
		"apiserver.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}),
		"apiserver.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: srvKeyDER}),
		"sa.key":        pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}),
		"sa.pub":        pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPubDER}),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	return caPEM, nil
}

func kubeconfig(server string, caPEM []byte, token string) string {
	// JSON is valid YAML and needs no YAML library; certificate-authority-data
	// is base64, which encoding/json produces for []byte.
	return fmt.Sprintf(`{
  "apiVersion": "v1",
  "kind": "Config",
  "clusters": [{"name": "winkube", "cluster": {"server": %q, "certificate-authority-data": %q}}],
  "users": [{"name": "admin", "user": {"token": %q}}],
  "contexts": [{"name": "winkube", "context": {"cluster": "winkube", "user": "admin"}}],
  "current-context": "winkube"
}
`, server, base64.StdEncoding.EncodeToString(caPEM), token)
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return tailLines(string(data), n)
}

func tailLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return "(empty)"
	}
	return strings.Join(lines, "\n")
}
