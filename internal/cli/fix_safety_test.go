package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Regression tests for issue 8, items 2 and 3: writes that cannot lose
// data, inputs that never hang, signals that stop every command.

const needsFix = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: mcr.microsoft.com/windows/servercore:ltsc2022\n"

func runCLI(ctx context.Context, stdin io.Reader, out io.Writer, args ...string) (int, string) {
	var errOut bytes.Buffer
	if out == nil {
		out = io.Discard
	}
	code := Run(ctx, args, Streams{In: stdin, Out: out, Err: &errOut})
	return code, errOut.String()
}

// writeFile writes s to p, making p's folders, and returns p.
func writeFile(t *testing.T, p, s string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFixWriteNeverFollowsALinkOut(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), filepath.Join(t.TempDir(), "target.yaml")
	writeFile(t, outside, needsFix)
	link := filepath.Join(dir, "pod.yaml")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	code, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "fix", "--write", dir)
	if code != ExitError || !strings.Contains(stderr, link) || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("exit %d, stderr %q; want 2 naming the link", code, stderr)
	}
	if b, _ := os.ReadFile(outside); string(b) != needsFix {
		t.Errorf("the link's target outside the folder was rewritten:\n%s", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a regular file")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

func TestFixStdoutFailureIsAnError(t *testing.T) {
	t.Parallel()
	code, stderr := runCLI(t.Context(), strings.NewReader(needsFix), failingWriter{}, "fix", "-")
	if code != ExitError || !strings.Contains(stderr, "stdout") {
		t.Errorf("exit %d, stderr %q; want 2 naming stdout", code, stderr)
	}
}

func TestFixReportsUnreadableDocuments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	writeFile(t, bad, "a: [unclosed\n")
	writeFile(t, filepath.Join(dir, "good.yaml"), needsFix)
	code, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "fix", "--write", dir)
	if code != ExitError || !strings.Contains(stderr, bad) {
		t.Errorf("exit %d, stderr %q; want 2 naming %s", code, stderr, bad)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "good.yaml")); string(b) == needsFix {
		t.Error("the readable file was not fixed")
	}
}

func TestFixRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "good.yaml"), needsFix)
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		code, stderr = runCLI(t.Context(), strings.NewReader(""), nil, "fix", dir)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second): // a hang, not a speed bound
		t.Fatal("fix hung on a FIFO")
	}
	if code != ExitError || !strings.Contains(stderr, "fifo.yaml") || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestFixWriteFailureLeavesTheFile runs fix --write in a child process
// under RLIMIT_FSIZE: the write fails, fix exits 2 naming the file, and the
// file is whole.
func TestFixWriteFailureLeavesTheFile(t *testing.T) {
	t.Parallel()
	if p := os.Getenv("WINKUBE_FSIZE_CHILD"); p != "" {
		lim := syscall.Rlimit{Cur: uint64(len(needsFix)), Max: uint64(len(needsFix))}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		code, stderr := runCLI(context.Background(), strings.NewReader(""), nil, "fix", "--write", p)
		if code != ExitError || !strings.Contains(stderr, p) {
			t.Fatalf("exit %d, stderr %q; want 2 naming %s", code, stderr, p)
		}
		return
	}
	p := filepath.Join(t.TempDir(), "pod.yaml")
	writeFile(t, p, needsFix)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFixWriteFailureLeavesTheFile$")
	cmd.Env = append(os.Environ(), "WINKUBE_FSIZE_CHILD="+p)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(p); string(b) != needsFix {
		t.Errorf("file changed:\n%s", b)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestSignalsStopEveryCommand sends SIGINT and SIGTERM to a child running
// each command on a stdin that never ends: it exits 130 or 143.
func TestSignalsStopEveryCommand(t *testing.T) {
	t.Parallel()
	if args := os.Getenv("WINKUBE_SIGNAL_CHILD"); args != "" {
		ctx, stop := SignalContext(context.Background())
		pr, _ := io.Pipe() // never written, never closed
		os.Stdout.WriteString("ready\n")
		code := Run(ctx, strings.Fields(args), Streams{In: pr, Out: io.Discard, Err: os.Stderr})
		stop()
		os.Exit(code)
	}
	for _, args := range []string{"lint -", "fix -", "simulate -"} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalsStopEveryCommand$")
			cmd.Env = append(os.Environ(), "WINKUBE_SIGNAL_CHILD="+args)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 6)
			io.ReadFull(out, buf)
			time.Sleep(50 * time.Millisecond) // let the command reach its read
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(60 * time.Second): // a hang, not a speed bound
				cmd.Process.Kill()
				t.Fatalf("%s ignored %v", args, sig)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Errorf("%s after %v: %v, want exit %d\n%s", args, sig, err, 128+int(sig), stderr.String())
			}
		}
	}
}

// TestWebhookReloadsOnHangup: SIGHUP reloads the config and certificate
// and the server keeps serving; SIGTERM then drains and exits 0, the
// server's normal way to stop.
func TestWebhookReloadsOnHangup(t *testing.T) {
	t.Parallel()
	if args := os.Getenv("WINKUBE_WEBHOOK_CHILD"); args != "" {
		ctx, stop := SignalContext(context.Background())
		code := Run(ctx, strings.Fields(args), Streams{In: strings.NewReader(""), Out: os.Stdout, Err: os.Stderr})
		stop()
		os.Exit(code)
	}
	dir := t.TempDir()
	if code, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "webhook", "certs", "--service", "w", "-n", "ns", "--out-dir", dir, "--san", "127.0.0.1"); code != ExitClean {
		t.Fatalf("certs: %s", stderr)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWebhookReloadsOnHangup$")
	cmd.Env = append(os.Environ(), "WINKUBE_WEBHOOK_CHILD=webhook serve --addr 127.0.0.1:0 --drain-delay 0 --tls-cert "+
		filepath.Join(dir, "tls.crt")+" --tls-key "+filepath.Join(dir, "tls.key"))
	logs := &lockedBuffer{}
	cmd.Stderr, cmd.Stdout = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitLog := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(logs.String(), what) {
				return
			}
		}
		t.Fatalf("no %q in the log:\n%s", what, logs.String())
	}
	waitLog("serving admission webhook")
	for range 2 {
		cmd.Process.Signal(syscall.SIGHUP)
	}
	waitLog("TLS certificate reloaded")
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the webhook died on SIGHUP: %v\n%s", err, logs.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v, want exit 0\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "shut down: every request in flight was answered") {
		t.Errorf("no drain in the log:\n%s", logs.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFixSummarySaysWhatWasWritten: without --write fix prints a diff and
// writes nothing, and its summary says the fixes would be applied; with
// --write they were.
func TestFixSummarySaysWhatWasWritten(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "pod.yaml")
	writeFile(t, p, needsFix)
	_, stderr := runCLI(t.Context(), strings.NewReader(""), nil, "fix", "--color", "never", p)
	if !strings.Contains(stderr, "would be applied to 1 of 1 files; nothing was written") {
		t.Errorf("fix without --write: summary does not say nothing was written:\n%s", stderr)
	}
	if b, _ := os.ReadFile(p); string(b) != needsFix {
		t.Errorf("fix without --write changed the file")
	}
	_, stderr = runCLI(t.Context(), strings.NewReader(""), nil, "fix", "--write", "--color", "never", p)
	if !strings.Contains(stderr, " applied to 1 of 1 files") || strings.Contains(stderr, "would be") {
		t.Errorf("fix --write: summary does not say the fixes were applied:\n%s", stderr)
	}
}
