package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI manners every command shares: -o is the format on stdout,
// --output-file FORMAT=PATH writes files (repeatable), -q silences status,
// --color and NO_COLOR decide colour, and a file that cannot be read or
// written is exit 2 with the file named.

const examples = "../../examples"

// run runs winkube with stdin and returns the exit code and streams.
func run(t *testing.T, tty bool, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(t.Context(), args, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut, OutIsTerminal: tty})
	return code, out.String(), errOut.String()
}

// command is one command line, minus the output flags, and what it may
// exit with when it works.
type command struct {
	name  string
	args  []string
	codes []int
	json  string // a key every -o json document of it has
}

func commands(t *testing.T) []command {
	certs := filepath.Join(t.TempDir(), "certs")
	return []command{
		{"lint", []string{"lint", examples}, []int{ExitFindings}, "findings"},
		{"simulate", []string{"simulate", examples}, []int{ExitFindings}, "pods"},
		{"fix", []string{"fix", examples}, []int{ExitClean, ExitError}, "files"},
		{"rules", []string{"rules"}, []int{ExitClean}, "id"},
		{"rules explain", []string{"rules", "explain", "missing-os-pin"}, []int{ExitClean}, "why"},
		{"webhook certs", []string{"webhook", "certs", "--service", "s", "-n", "ns", "--out-dir", certs, "--force"}, []int{ExitClean}, "caBundle"},
		{"nodeconfig validate", []string{"nodeconfig", "validate", "../nodeconfig/testdata/cases/kubelet-bad"}, []int{ExitFindings}, "findings"},
		// --offline with an empty cache: every image is a finding, no network.
		{"images", []string{"images", "--offline", "--registry-cache", t.TempDir(), examples}, []int{ExitFindings}, "images"},
	}
}

func okCode(code int, codes []int) bool {
	for _, c := range codes {
		if c == code {
			return true
		}
	}
	return false
}

// hasKey reports whether the JSON document (an object, or an array of
// objects) has the key at its top level.
func hasKey(t *testing.T, doc []byte, key string) bool {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(doc, &obj); err == nil {
		_, ok := obj[key]
		return ok
	}
	var arr []map[string]any
	if err := json.Unmarshal(doc, &arr); err != nil || len(arr) == 0 {
		t.Errorf("not a JSON object or array: %v\n%.300s", err, doc)
		return false
	}
	_, ok := arr[0][key]
	return ok
}

func TestOutputIsTheFormat(t *testing.T) {
	t.Parallel()
	for _, c := range commands(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, flag := range []string{"-o", "--output"} {
				code, out, errOut := run(t, false, "", append(c.args, flag, "json")...)
				if !okCode(code, c.codes) {
					t.Fatalf("%s json: exit %d\n%s", flag, code, errOut)
				}
				if !hasKey(t, []byte(out), c.json) {
					t.Errorf("%s json: stdout lacks %q:\n%.300s", flag, c.json, out)
				}
			}
			code, _, errOut := run(t, false, "", append(c.args, "-o", "yaml")...)
			if code != ExitError || !strings.Contains(errOut, `--output "yaml": want`) {
				t.Errorf("-o yaml: exit %d, stderr %q", code, errOut)
			}
		})
	}
	// The old lint wrote a text report into a file named after the format.
	if _, err := os.Stat("json"); err == nil {
		t.Error("a file named json was written")
	}
}

func TestOutputFile(t *testing.T) {
	t.Parallel()
	for _, c := range commands(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
			if err := os.WriteFile(b, []byte("old"), 0o640); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, false, "", append(c.args, "--output-file", "json="+a, "--output-file", "json="+b)...)
			if !okCode(code, c.codes) {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if json.Valid([]byte(out)) && strings.TrimSpace(out) != "" {
				t.Errorf("stdout is JSON; want the default format:\n%.200s", out)
			}
			for _, p := range []string{a, b} {
				data, err := os.ReadFile(p)
				if err != nil || !hasKey(t, data, c.json) {
					t.Errorf("%s: %v\n%.200s", p, err, data)
				}
			}
			if st, err := os.Stat(b); err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("%s: mode %v, want the file's own 0640 kept", b, st.Mode().Perm())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				t.Errorf("%d files in the folder, want the two outputs and no temporaries", len(entries))
			}
		})
	}
}

func TestOutputFileFailures(t *testing.T) {
	t.Parallel()
	for _, c := range commands(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bad := filepath.Join(t.TempDir(), "missing-dir", "out.json")
			code, _, errOut := run(t, false, "", append(c.args, "--output-file", "json="+bad)...)
			if code != ExitError || !strings.Contains(errOut, bad) {
				t.Errorf("unwritable --output-file: exit %d, stderr %q; want 2 naming %s", code, errOut, bad)
			}
			for _, spec := range []string{"json", "=x.json", "yaml=x.yaml"} {
				code, _, errOut := run(t, false, "", append(c.args, "--output-file", spec)...)
				if code != ExitError || !strings.Contains(errOut, "--output-file") {
					t.Errorf("--output-file %q: exit %d, stderr %q", spec, code, errOut)
				}
			}
		})
	}
}

func TestColor(t *testing.T) {
	for _, c := range commands(t) {
		if c.name == "webhook certs" || c.name == "images" {
			continue // prints only base64, JSON or a plain table: nothing to colour
		}
		t.Run(c.name, func(t *testing.T) {
			for _, tt := range []struct {
				tty     bool
				flag    string
				noColor string
				want    bool
			}{
				{false, "auto", "", false},
				{true, "auto", "", true},
				{true, "auto", "1", false},
				{false, "always", "1", true},
				{true, "never", "", false},
			} {
				t.Setenv("NO_COLOR", tt.noColor)
				code, out, errOut := run(t, tt.tty, "", append(c.args, "--color", tt.flag)...)
				if !okCode(code, c.codes) {
					t.Fatalf("exit %d\n%s", code, errOut)
				}
				if got := strings.Contains(out, "\x1b["); got != tt.want {
					t.Errorf("tty=%v --color=%s NO_COLOR=%q: colour %v, want %v", tt.tty, tt.flag, tt.noColor, got, tt.want)
				}
			}
		})
	}
}

func TestQuiet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A Windows pool reserving too little memory: lint and simulate warn.
	cluster := writeFile(t, filepath.Join(dir, "cluster.yaml"), `apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- {name: lin, count: 2, os: linux, cpu: "4", memory: 16Gi}
- {name: win, count: 2, os: windows, cpu: "4", memory: 16Gi, reserved: {memory: 500Mi}}
`)
	certs := filepath.Join(dir, "certs")
	for _, args := range [][]string{
		{"lint", "--fail-on", "none", "--cluster", cluster, examples},
		{"simulate", "--cluster", cluster, "-"},
		{"fix", "-"},
		{"webhook", "certs", "--service", "s", "-n", "ns", "--out-dir", certs, "--force"}, // run repeatedly: --force replaces
	} {
		_, _, loud := run(t, false, cleanApp, args...)
		if loud == "" {
			t.Errorf("%v: no status on stderr without -q; the test proves nothing", args)
		}
		_, _, quiet := run(t, false, cleanApp, append(args, "-q")...)
		if quiet != "" {
			t.Errorf("%v -q: stderr %q", args, quiet)
		}
	}
}

func TestUnreadableInputIsExit2(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	// load-error disabled: the finding goes, the exit status stays 2.
	cfg := writeFile(t, filepath.Join(dir, "config.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n  disable: [load-error]\n")
	for _, args := range [][]string{
		{"lint", missing},
		{"lint", "--fail-on", "none", missing},
		{"lint", "--config", cfg, missing},
		{"lint", "-o", "sarif", examples, missing},
		{"fix", missing},
		{"simulate", missing},
		{"lint", "--config", filepath.Join(dir, "nope.yaml"), examples},
		{"lint", "--cluster", filepath.Join(dir, "nope.yaml"), examples},
	} {
		code, _, errOut := run(t, false, "", args...)
		named := args[len(args)-1]
		if strings.Contains(strings.Join(args, " "), "nope.yaml") {
			named = filepath.Join(dir, "nope.yaml")
		}
		if code != ExitError || !strings.Contains(errOut, named) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", args, code, errOut, named)
		}
	}
}

func TestConfigErrorsHavePositions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "config.yaml"), "apiVersion: winkube.io/v1alpha1\nkind: Config\nrules:\n  severity: {missing-os-pin: loud}\n")
	for _, cmd := range []string{"lint", "fix", "simulate"} {
		code, _, errOut := run(t, false, cleanApp, cmd, "--config", cfg, "-")
		if code != ExitError || !strings.Contains(errOut, cfg+`:4:14: rules.severity[missing-os-pin]: unknown severity "loud"`) {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, errOut)
		}
	}
}

// TestHelpSaysWhereOutputGoes: -o names the stream the command really
// writes its format to: the webhook server logs to stderr, everything else
// prints its result on stdout; and policy export's help does not promise
// the reference cluster it refuses to assume.
func TestHelpSaysWhereOutputGoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"webhook", "serve", "--help"}, "log format on stderr"},
		{[]string{"lint", "--help"}, "format on stdout"},
		{[]string{"policy", "export", "--help"}, "an export never assumes the reference cluster"},
	} {
		code, out, errOut := run(t, false, "", tc.args...)
		if code != ExitClean || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, help lacks %q:\n%s%s", tc.args, code, tc.want, out, errOut)
		}
	}
}
