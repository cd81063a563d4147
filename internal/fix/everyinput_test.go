package fix_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"gopkg.in/yaml.v3"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/internal/manifest"
)

// TestFixWriteOnEveryInput runs `winkube fix --unsafe --write` over a copy
// of every manifest the repository holds: the real corpus, the rule
// fixtures, the examples and every testdata file. Each file is either
// written byte-correct (same encoding and line breaks, same documents,
// every changed document parses, JSON stays JSON, a second run changes
// nothing) or refused with exit 2 and left byte for byte as it was.
func TestFixWriteOnEveryInput(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	dir := t.TempDir()
	before := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "fuzz" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(rel, "testdata") && !strings.HasPrefix(rel, "examples") || !isManifest(p) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		before[dst] = b
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(before) < 200 {
		t.Fatalf("found %d inputs; the walk is broken", len(before))
	}
	// One run per folder: files of a folder belong together, and unrelated
	// fixtures define objects of the same name (RuntimeClass windows-2022)
	// that would otherwise meet in the engine's cross-object state.
	dirs := map[string]bool{}
	for p := range before {
		dirs[filepath.Dir(p)] = true
	}
	var stderrs strings.Builder
	codes := map[int]int{}
	for d := range dirs {
		code, stderr := winkube(t, "fix", "--unsafe", "--write", d)
		if code != 0 && code != 2 {
			t.Fatalf("%s: exit %d:\n%s", d, code, stderr)
		}
		codes[code]++
		stderrs.WriteString(stderr)
	}
	stderr := stderrs.String()
	changed := 0
	for p, b := range before {
		a, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(a, b) {
			continue
		}
		changed++
		if refused(stderr, p) {
			t.Errorf("%s: refused, yet written", p)
		}
		checkByteCorrect(t, p, b, a)
	}
	t.Logf("%d inputs in %d folders, %d fixed; exit codes %v", len(before), len(dirs), changed, codes)
	if testing.Verbose() {
		t.Log(stderr)
	}
	if changed == 0 {
		t.Fatal("nothing was fixed; the inputs need fixes")
	}
	for d := range dirs {
		if code, diff, stderr2 := winkubeOut(t, "fix", "--unsafe", d); code != 0 && code != 2 || diff != "" {
			t.Errorf("%s: a second run still changes files (exit %d):\n%s\n%s", d, code, diff, stderr2)
		}
	}
}

func isManifest(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// refused reports whether stderr says fix refused file p.
func refused(stderr, p string) bool {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "error: "+p+": ") && strings.Contains(l, "not written") {
			return true
		}
	}
	return false
}

// checkByteCorrect checks a written file: same byte order mark, no line
// break style it did not have, same documents, each changed one parsing
// (as JSON in a .json file).
func checkByteCorrect(t *testing.T, p string, before, after []byte) {
	t.Helper()
	for _, bom := range [][]byte{[]byte("\xef\xbb\xbf"), {0xFF, 0xFE}, {0xFE, 0xFF}} {
		if bytes.HasPrefix(before, bom) != bytes.HasPrefix(after, bom) {
			t.Errorf("%s: byte order mark changed", p)
		}
	}
	crlf := func(b []byte) int { return bytes.Count(b, []byte("\r\n")) }
	if crlf(before) == 0 && crlf(after) > 0 || crlf(before) > 0 && bytes.Count(before, []byte("\n")) == crlf(before) && bytes.Count(after, []byte("\n")) != crlf(after) {
		t.Errorf("%s: line breaks changed style", p)
	}
	before, after = utf8Text(before), utf8Text(after)
	isJSON := strings.EqualFold(filepath.Ext(p), ".json")
	bd, err1 := manifest.Split(p, before, isJSON)
	ad, err2 := manifest.Split(p, after, isJSON)
	if err1 != nil || err2 != nil || len(bd) != len(ad) {
		t.Errorf("%s: %d documents became %d (%v, %v)", p, len(bd), len(ad), err1, err2)
		return
	}
	for i := range bd {
		b, a := before[bd[i].Start:bd[i].End], after[ad[i].Start:ad[i].End]
		if bytes.Equal(a, b) {
			continue
		}
		var v any
		if err := yaml.Unmarshal(a, &v); err != nil {
			t.Errorf("%s: document %d does not parse after the fix: %v", p, i, err)
		}
		if isJSON && json.Valid(b) && !json.Valid(a) {
			t.Errorf("%s: no longer JSON", p)
		}
	}
}

// utf8Text decodes UTF-16 text (with its byte order mark) to UTF-8, where
// the splitter's offsets count.
func utf8Text(b []byte) []byte {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		order = binary.LittleEndian
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		order = binary.BigEndian
	default:
		return b
	}
	units := make([]uint16, (len(b)-2)/2)
	for i := range units {
		units[i] = order.Uint16(b[2+2*i:])
	}
	return []byte(string(utf16.Decode(units)))
}

// winkube runs the CLI in-process and returns its exit code and stderr.
func winkube(t *testing.T, args ...string) (int, string) {
	code, _, stderr := winkubeOut(t, args...)
	return code, stderr
}

func winkubeOut(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Run(t.Context(), args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}
