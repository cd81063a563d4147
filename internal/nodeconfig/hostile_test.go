package nodeconfig

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileRefusesSpecialFiles: a FIFO is refused without blocking
// (nobody ever writes to it), /dev/zero without reading it, and an
// over-size file at the cap.
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "kubelet.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	big := filepath.Join(dir, "big.conflist")
	if err := os.WriteFile(big, []byte(`{"cniVersion":"0.3.1","x":"`+strings.Repeat("a", MaxFileSize)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file (a FIFO)"},
		{"/dev/zero", "not a regular file (a device)"},
		{big, "larger than"},
		{filepath.Join(dir, "missing.toml"), "no such file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(tc.path); done <- err }()
		select {
		case err := <-done:
			var le *LoadError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadFile(%s) = %v, want a LoadError with %q", tc.path, err, tc.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", tc.path)
		}
	}
}

// TestDepthRefusedBeforeParsing: 2 MB of nested arrays overflowed the
// TOML parser's stack (a fatal error, not a panic); every format is
// refused at the depth limit with a position.
func TestDepthRefusedBeforeParsing(t *testing.T) {
	deep := strings.Repeat("[", 2<<20)
	for name, data := range map[string]string{
		"toml":        "version = 2\na = " + deep,
		"toml-inline": "version = 2\na = " + strings.Repeat("{b = ", 100000),
		"json":        `{"cniVersion": "0.3.1", "plugins": ` + deep,
		"yaml-flow":   "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nx: " + deep,
	} {
		_, err := Parse(name, []byte(data))
		if err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("%s: %v, want the depth refusal", name, err)
		}
	}
	// Brackets inside strings and comments are not nesting.
	ok := "version = 2\n# " + strings.Repeat("[", 1000) + "\n[plugins.\"x\"]\n  a = \"" + strings.Repeat("[", 1000) + "\"\n  b = '" + strings.Repeat("{", 1000) + "'\n"
	if _, err := Parse("ok.toml", []byte(ok)); err != nil {
		t.Errorf("brackets in strings and comments: %v", err)
	}
}

// TestJSONAsConsumersRead: libcni reads one JSON value per file and
// encoding/json matches keys case-insensitively, keeping the last; a file
// the rules would read one way and the plugin another is refused.
func TestJSONAsConsumersRead(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"trailing object", `{"cniVersion":"0.3.1","name":"n","type":"flannel"} {"type":"evil"}`, "data after the top-level value"},
		{"trailing garbage", "{\"cniVersion\":\"0.3.1\",\"type\":\"flannel\"}\nxyz", "data after the top-level value"},
		{"case-variant keys", `{"cniVersion":"0.3.1","name":"n","type":"flannel","Type":"bridge"}`, `duplicate key "Type"`},
		{"nested case-variant keys", `{"cniVersion":"0.3.1","plugins":[{"type":"flannel","delegate":{"type":"win-overlay","TYPE":"x"}}]}`, `duplicate key "TYPE"`},
		{"exact duplicate keys", `{"Network":"10.244.0.0/16","Network":"10.0.0.0/8"}`, `duplicate key "Network"`},
	} {
		_, err := Parse(tc.name+".conflist", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Parse("ok.conflist", []byte("{\"cniVersion\":\"0.3.1\",\"type\":\"flannel\"}\n\n")); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}

// TestNodeRelAsWindows: paths Windows resolves to one folder compare
// equal; a path on another drive never equals one under C:\.
func TestNodeRelAsWindows(t *testing.T) {
	want := "etc/cni/net.d"
	for _, p := range []string{`C:\etc\cni\net.d`, `c:\etc\cni\net.d\`, `C:/etc/cni/net.d`, `C:\etc\.\cni\net.d`, `C:\etc\x\..\cni\net.d`,
		`C:\\etc\\cni\net.d`, `\etc\cni\net.d`, `\\?\C:\etc\cni\net.d`, `C:\ETC\CNI\NET.D`} {
		if got := nodeRel(p); !strings.EqualFold(got, want) {
			t.Errorf("nodeRel(%q) = %q, want %q", p, got, want)
		}
	}
	for _, p := range []string{`D:\etc\cni\net.d`, `d:/etc/cni/net.d`, `\\?\E:\etc\cni\net.d`} {
		if got := nodeRel(p); strings.EqualFold(got, want) {
			t.Errorf("nodeRel(%q) = %q: another drive equals C:", p, got)
		}
	}
}

// TestPositionsLinear: locating every field of a large document costs
// memory linear in its size (a 945 KB JSON took 3.9 GB when each node kept
// its full path) and every position is right.
func TestPositionsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"cniVersion":"0.3.1","type":"flannel","k":[`)
	const n = 100000
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"a":{"b":[1]}}`)
	}
	b.WriteString("]}")
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f, err := Parse("big.conflist", data)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200*uint64(len(data)) {
		t.Errorf("parsing %d bytes allocated %d MB", len(data), alloc>>20)
	}
	if line, col := f.Locate("k[99999].a.b[0]"); line != n || col != 12 {
		t.Errorf("k[99999].a.b[0] at %d:%d, want %d:12", line, col, n)
	}
	if line, col := f.Locate("k[5].a.missing"); line != 6 || col != 2 {
		t.Errorf("an absent field locates at %d:%d, want its parent at 6:2", line, col)
	}
}
