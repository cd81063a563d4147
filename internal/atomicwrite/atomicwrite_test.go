package atomicwrite

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFileReplacesKeepingMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(p, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := File(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	assertFile(t, p, "new", 0o640)
	assertOnly(t, dir, "a.yaml")
}

func TestFileCreatesWithPerm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := File(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	assertFile(t, p, "x", 0o600)
}

func TestFileRefusesLinksAndSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "target.yaml")
	if err := os.WriteFile(outside, []byte("target"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
	}{{link, ErrSymlink}, {fifo, ErrNotRegular}, {dir, ErrNotRegular}} {
		err := File(c.path, []byte("new"), 0o644)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("File(%s) = %v, want %v naming the file", c.path, err, c.want)
		}
	}
	assertFile(t, outside, "target", 0o644)
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced: %v %v", st, err)
	}
}

func TestFileFailureLeavesOriginal(t *testing.T) {
	// Not parallel: swaps the package's hooks.
	dir := t.TempDir()
	p := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	errSync := errors.New("injected sync failure")
	syncFile = func(*os.File) error { return errSync }
	t.Cleanup(func() { syncFile = (*os.File).Sync })
	if err := File(p, []byte("new content"), 0o644); !errors.Is(err, errSync) || !strings.Contains(err.Error(), p) {
		t.Fatalf("File = %v, want the sync failure naming %s", err, p)
	}
	assertFile(t, p, "old", 0o644)
	assertOnly(t, dir, "a.yaml")

	syncFile = (*os.File).Sync
	createTemp = func(string, string) (*os.File, error) { return nil, syscall.ENOSPC }
	t.Cleanup(func() { createTemp = os.CreateTemp })
	if err := File(p, []byte("new content"), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("File = %v, want ENOSPC", err)
	}
	assertFile(t, p, "old", 0o644)
}

// TestFileSizeLimit writes under RLIMIT_FSIZE in a child process: the
// write fails with EFBIG, the original stays whole.
func TestFileSizeLimit(t *testing.T) {
	t.Parallel()
	if p := os.Getenv("ATOMICWRITE_CHILD"); p != "" {
		lim := syscall.Rlimit{Cur: 1024, Max: 1024}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		err := File(p, make([]byte, 4096), 0o644)
		if !errors.Is(err, syscall.EFBIG) {
			t.Fatalf("File = %v, want EFBIG", err)
		}
		return
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileSizeLimit$")
	cmd.Env = append(os.Environ(), "ATOMICWRITE_CHILD="+p)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	assertFile(t, p, "old", 0o644)
	assertOnly(t, dir, "a.yaml")
}

func assertFile(t *testing.T, p, content string, mode fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != content {
		t.Errorf("%s = %q, %v; want %q", p, b, err, content)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != mode {
		t.Errorf("%s mode = %v, %v; want %v", p, st.Mode(), err, mode)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v (a temporary file was left behind)", dir, got, names)
	}
}

// TestKillDuringWrite kills (SIGKILL) a child that keeps replacing a file
// with one of two large contents: whenever it dies, the file holds one of
// them whole, never a truncated mix.
func TestKillDuringWrite(t *testing.T) {
	t.Parallel()
	a, b := bytes.Repeat([]byte("a"), 8<<20), bytes.Repeat([]byte("b"), 8<<20)
	if p := os.Getenv("ATOMICWRITE_KILL_CHILD"); p != "" {
		os.Stdout.WriteString("ready\n")
		for i := 0; ; i++ {
			data := a
			if i%2 == 1 {
				data = b
			}
			if err := File(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for round := range 5 {
		p := filepath.Join(t.TempDir(), "f.yaml")
		if err := os.WriteFile(p, a, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringWrite$")
		cmd.Env = append(os.Environ(), "ATOMICWRITE_KILL_CHILD="+p)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.ReadFull(out, make([]byte, 6))
		time.Sleep(time.Duration(20+round*37) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("round %d: after SIGKILL the file holds %d bytes, neither content whole (%v)", round, len(got), err)
		}
	}
}

// TestSecret: key material gets exactly its mode, even over a file that
// was readable by others, and a planted link is refused with its target
// left as it was (mode and content).
func TestSecret(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "tls.key")
	if err := os.WriteFile(key, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Secret(key, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(key); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v over an existing 0644 file, want 0600", st.Mode().Perm())
	}
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "planted.key")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := Secret(link, []byte("secret"), 0o600); !errors.Is(err, ErrSymlink) {
		t.Errorf("Secret through a link: %v, want ErrSymlink", err)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("link target's mode became %v", st.Mode().Perm())
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Errorf("link target was written: %q", data)
	}
}
