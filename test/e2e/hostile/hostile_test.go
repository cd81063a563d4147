package hostile

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/live/fetch/apiservertest"
)

// Budgets per run. The time is generous for a loaded 2-core machine; each
// hostile input here ran forever or to the OOM killer before.
const (
	timeBudget   = 90 * time.Second
	memoryBudget = 1 << 30 // maximum resident set, bytes
)

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "winkube-hostile-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin = filepath.Join(dir, "winkube")
	build := exec.Command("go", "build", "-o", bin, "github.com/winkube/winkube/cmd/winkube")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building winkube: %v\n%s", err, out)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run is one command: its exit code, stderr and stdout, within the time
// and memory budgets (the process is killed at the time budget).
type run struct {
	code           int
	stdout, stderr string
}

func winkube(t *testing.T, args ...string) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeBudget)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("winkube %s: still running after %s (killed)\nstderr: %s", strings.Join(args, " "), timeBudget, tail(errb.String()))
	}
	r := run{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	if err != nil && r.code < 0 {
		t.Fatalf("winkube %s: %v", strings.Join(args, " "), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		if rss := ru.Maxrss * 1024; rss > memoryBudget {
			t.Errorf("winkube %s: peak memory %d MiB, budget %d MiB", strings.Join(args, " "), rss>>20, memoryBudget>>20)
		}
		t.Logf("winkube %s: exit %d in %s, peak %d MiB", strings.Join(args, " "), r.code, took.Round(time.Millisecond), ru.Maxrss>>10)
	}
	return r
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// expect checks the exit code and that stderr or stdout has want.
func (r run) expect(t *testing.T, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, tail(r.stdout), tail(r.stderr))
	}
	if !strings.Contains(r.stderr+r.stdout, want) {
		t.Errorf("output lacks %q\nstdout: %s\nstderr: %s", want, tail(r.stdout), tail(r.stderr))
	}
	if strings.Contains(r.stderr+r.stdout, "\x1b") {
		t.Errorf("an escape character reached the output")
	}
}

// TestLiveCommands: audit and doctor against API servers that hang, send
// slowly, page forever, repeat a token, send without end, refuse every
// list, or write escape sequences into what they return.
func TestLiveCommands(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	servers := []struct {
		name string
		h    http.HandlerFunc
		code int
		want string
	}{
		{"hung", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, 2, "Client.Timeout"},
		{"slow body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"items":[`)
			w.(http.Flusher).Flush()
			for r.Context().Err() == nil {
				time.Sleep(500 * time.Millisecond)
				if _, err := w.Write([]byte(" ")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}, 2, "Client.Timeout"},
		{"repeated continue token", func(w http.ResponseWriter, r *http.Request) { apiservertest.List(w, "again") }, 2, "same continue token again"},
		{"token cycle", func(w http.ResponseWriter, r *http.Request) { apiservertest.List(w, fmt.Sprint(n.Add(1)%3)) }, 2, "same continue token again"},
		{"endless body", apiservertest.EndlessNodes, 2, "larger than 128 MiB"},
		{"every list forbidden", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"forbidden \u001b]0;owned\u0007\u001b[2J"}`)
		}, 2, "could not list"},
		{"malformed", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"items":[{"metadata":`)
		}, 2, "listing "},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			kc := apiservertest.Serve(t, s.h)
			// The endless body must meet the 128 MiB cap, not the request
			// timeout, however loaded the machine: it gets a long timeout.
			timeout := "2s"
			if s.name == "endless body" {
				timeout = "60s"
			}
			for _, cmd := range []string{"audit", "doctor"} {
				r := winkube(t, cmd, "--kubeconfig", kc, "-A", "--request-timeout", timeout)
				r.expect(t, s.code, s.want)
				if cmd == "audit" && s.name == "every list forbidden" && strings.Contains(r.stdout, " ready ") {
					t.Errorf("audit calls an area ready when every list was refused:\n%s", r.stdout)
				}
			}
		})
	}
}

// TestImages: registries that redirect in a loop or send an endless
// manifest end in typed failures (exit 1: the image is a finding), and an
// unwritable cache is a warning.
func TestImages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
		want string
	}{
		{"redirect loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, r.URL.Path+"x", http.StatusFound) }, "too many redirects"},
		{"endless manifest", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			chunk := bytes.Repeat([]byte(" "), 64<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "response too large"},
		{"hung", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, "timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v2/" {
					return
				}
				tc.h(w, r)
			}))
			t.Cleanup(srv.Close)
			host := strings.TrimPrefix(srv.URL, "http://")
			pod := filepath.Join(t.TempDir(), "pod.yaml")
			os.WriteFile(pod, []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {kubernetes.io/os: windows}\n  containers: [{name: c, image: "+host+"/shop/app:1.0}]\n"), 0o644)
			file := filepath.Join(t.TempDir(), "file")
			os.WriteFile(file, nil, 0o644)
			r := winkube(t, "images", "--insecure-registry", host, "--registry-timeout", "5s", "--registry-cache", filepath.Join(file, "cache"), pod)
			r.expect(t, 1, tc.want)
		})
	}
}

// TestFiles: nodeconfig validate and generate, and simulate, given
// special, deep and huge files.
func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "kubelet.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deepTOML := write("deep.toml", "version = 2\na = "+strings.Repeat("[", 2<<20))
	deepJSON := write("deep.conflist", `{"cniVersion":"0.3.1","plugins":`+strings.Repeat("[", 945<<10))
	var wide strings.Builder
	wide.WriteString(`{"cniVersion":"0.3.1","name":"n","plugins":[{"type":"flannel","x":[`)
	for wide.Len() < 3<<20 {
		wide.WriteString(`{"k":"v"},`)
	}
	wide.WriteString(`{}]}]}`)
	wideJSON := write("wide.conflist", wide.String())
	huge := write("huge.conflist", `{"cniVersion":"0.3.1","x":"`+strings.Repeat("a", 10<<20)+`"}`)
	cluster := write("cluster.yaml", "apiVersion: winkube.io/v1alpha1\nkind: Cluster\npools:\n- {name: a, count: 100000000, os: linux, cpu: \"1\", memory: 1Gi}\n")
	node := write("node.yaml", "apiVersion: winkube.io/v1alpha1\nkind: WindowsNode\nkubernetesVersion: \"1.36.0\\nStart-Process calc.exe\"\nwindowsBuild: ltsc2022\ncontainerdVersion: 2.1.4\ncni: antrea\npodCIDR: 10.244.0.0/16\nserviceCIDR: 10.96.0.0/12\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"validate a FIFO", []string{"nodeconfig", "validate", fifo}, 1, "not a regular file (a FIFO)"},
		{"validate /dev/zero", []string{"nodeconfig", "validate", "/dev/zero"}, 1, "not a regular file (a device)"},
		{"validate 2 MB of nested TOML arrays", []string{"nodeconfig", "validate", deepTOML}, 1, "nested more than 64 levels"},
		{"validate 945 KB of nested JSON", []string{"nodeconfig", "validate", deepJSON}, 1, "nested more than 64 levels"},
		{"validate a 3 MB wide conflist", []string{"nodeconfig", "validate", wideJSON}, 0, "0 errors"},
		{"validate a 10 MB conflist", []string{"nodeconfig", "validate", huge}, 1, "larger than"},
		{"generate from a FIFO", []string{"nodeconfig", "generate", "-f", fifo, "--out-dir", t.TempDir()}, 2, "not a regular file"},
		{"generate with a newline in the version", []string{"nodeconfig", "generate", "-f", node, "--out-dir", t.TempDir()}, 2, "kubernetesVersion:"},
		{"simulate 100000000 nodes", []string{"simulate", "--cluster", cluster, "../../../examples/iis-site.yaml"}, 2, "over the 5000 nodes"},
		{"simulate with a FIFO cluster", []string{"simulate", "--cluster", fifo, "../../../examples/iis-site.yaml"}, 2, "not a regular file"},
		// Every file flag: a FIFO blocked the open forever, /dev/zero read
		// without end.
		{"lint --config a FIFO", []string{"lint", "--config", fifo, "../../../examples/iis-site.yaml"}, 2, "not a regular file"},
		{"nodeconfig validate --config /dev/zero", []string{"nodeconfig", "validate", "--config", "/dev/zero", wideJSON}, 2, "not a regular file"},
		{"simulate --scheduler-config a FIFO", []string{"simulate", "--scheduler-config", fifo, "../../../examples/iis-site.yaml"}, 2, "not a regular file"},
		{"images --registry-config /dev/zero", []string{"images", "--registry-config", "/dev/zero", "../../../examples/iis-site.yaml"}, 2, "not a regular file"},
		{"webhook serve --config a FIFO", []string{"webhook", "serve", "--config", fifo, "--tls-cert", "/dev/zero", "--tls-key", "/dev/zero", "--addr", "127.0.0.1:0"}, 2, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			winkube(t, tc.args...).expect(t, tc.code, tc.want)
		})
	}
}
