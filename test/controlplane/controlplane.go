package controlplane

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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

// EnvBinDir names a directory holding prebuilt etcd, kube-apiserver,
// kube-scheduler (and, for [Options.ControllerManager],
// kube-controller-manager) binaries; when set, nothing is built.
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

	// AuthorizationMode is kube-apiserver's --authorization-mode (a list
	// flag, so ExtraAPIServerFlags cannot replace it); default
	// AlwaysAllow. "RBAC" makes tests see what a role allows; the admin
	// token is in system:masters either way.
	AuthorizationMode string

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

	// ControllerManager also starts kube-controller-manager with only the
	// controllers that turn workloads into pods (see
	// [WorkloadControllers]), so Deployments, ReplicaSets, StatefulSets,
	// DaemonSets and Jobs get their pods as in a cluster. Nothing else runs:
	// no garbage collector (deleting a Deployment leaves its ReplicaSets and
	// pods), no node lifecycle (fake nodes stay Ready), no service accounts.
	ControllerManager bool
	// ExtraControllerManagerFlags are appended to kube-controller-manager's
	// command line.
	ExtraControllerManagerFlags []string

	// StartTimeout bounds starting the processes and waiting for readiness
	// (not building binaries). Default 2 minutes.
	StartTimeout time.Duration
}

// ControlPlane is a running etcd + kube-apiserver (+ kube-scheduler,
// + kube-controller-manager).
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
	// schedulerURL is kube-scheduler's secure endpoint, "" without one;
	// schedulerArgs its command line, for RestartScheduler.
	schedulerURL  string
	schedulerArgs []string
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
			"(etcd, kube-apiserver, kube-scheduler, kube-controller-manager as asked); tests comparing against it cannot run.\n"+
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
// (and kube-controller-manager if asked) on 127.0.0.1 in a fresh temporary
// directory, and waits until they are ready. The caller must call Stop.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	binDir, err := ensureBinaries(ctx, opts.BinDir, opts.ControllerManager)
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

	ports, err := freePorts(5)
	if err != nil {
		return nil, fmt.Errorf("controlplane: picking free ports: %w", err)
	}
	etcdClientPort, etcdPeerPort, apiPort, schedPort, kcmPort := ports[0], ports[1], ports[2], ports[3], ports[4]

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

	etcdURL, err := cp.startEtcd(ctx, etcdClientPort, etcdPeerPort)
	if err != nil {
		return nil, err
	}
	if err := cp.startAPIServer(ctx, opts, apiPort, etcdURL, caPEM, token); err != nil {
		return nil, err
	}
	if opts.ControllerManager {
		if err := cp.startControllerManager(ctx, kcmPort, opts.ExtraControllerManagerFlags); err != nil {
			return nil, err
		}
	}
	if opts.NoScheduler {
		return cp, nil
	}
	if err := cp.configureScheduler(opts, schedPort); err != nil {
		return nil, err
	}
	if err := cp.startScheduler(ctx); err != nil {
		return nil, err
	}
	return cp, nil
}

// readyzCheck is a waitFor check: a GET of url answered 200.
func readyzCheck(url string) func(c *http.Client) (bool, string) {
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

// Exited reports, as an error carrying the tail of its log, that the named
// process has exited; nil while it runs. A test waiting on what a
// component does (say, kube-controller-manager creating pods) can check it
// to fail at once instead of at its timeout.
func (cp *ControlPlane) Exited(name string) error {
	p := cp.proc(name)
	if p == nil {
		return fmt.Errorf("controlplane: no %s was started", name)
	}
	select {
	case <-p.done:
		return fmt.Errorf("controlplane: %s exited (%v)\n--- tail of %s ---\n%s", name, p.err, p.logPath, tail(p.logPath, 40))
	default:
		return nil
	}
}

// proc returns the started process with that name, nil if none.
func (cp *ControlPlane) proc(name string) *proc {
	for _, p := range cp.procs {
		if p.name == name {
			return p
		}
	}
	return nil
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
// ("etcd", "kube-apiserver", "kube-scheduler" or "kube-controller-manager");
// valid until Stop.
func (cp *ControlPlane) LogPath(name string) string {
	return filepath.Join(cp.Dir, name+".log")
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
