package dist

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

type actionStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	Run              string            `yaml:"run"`
}

type action struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

var expr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// runner plays the part of a GitHub runner for the action's shell steps:
// it evaluates the expressions the action uses and keeps step outputs.
type runner struct {
	t         *testing.T
	inputs    map[string]string
	root      string // github.action_path
	workspace string
	temp      string
	outputs   map[string]map[string]string
	path      []string // lines added to GITHUB_PATH
}

func (r *runner) eval(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		e := strings.TrimSpace(expr.FindStringSubmatch(m)[1])
		switch {
		case e == "github.action_path":
			return r.root
		case strings.HasPrefix(e, "inputs."):
			v, ok := r.inputs[strings.TrimPrefix(e, "inputs.")]
			if !ok {
				r.t.Fatalf("action.yml uses %s, which is not an input", e)
			}
			return v
		case strings.HasPrefix(e, "steps."):
			parts := strings.Split(e, ".") // steps.ID.outputs.NAME
			if len(parts) != 4 || parts[2] != "outputs" {
				r.t.Fatalf("action.yml: unsupported expression %s", e)
			}
			return r.outputs[parts[1]][parts[3]]
		}
		r.t.Fatalf("action.yml: expression %q is not one this runner knows; extend the test", e)
		return ""
	})
}

// step runs one shell step and returns its exit code and output.
func (r *runner) step(s actionStep) (int, string) {
	if s.Shell != "bash" {
		r.t.Fatalf("step %q: shell %q, want bash (the only shell on every runner OS)", s.Name, s.Shell)
	}
	out := filepath.Join(r.temp, "github_output")
	pathFile := filepath.Join(r.temp, "github_path")
	for _, f := range []string{out, pathFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(r.t.Context(), "bash", "-e", "-c", s.Run)
	cmd.Dir = r.workspace
	if s.WorkingDirectory != "" {
		cmd.Dir = r.eval(s.WorkingDirectory)
	}
	env := append(os.Environ(), "GITHUB_OUTPUT="+out, "GITHUB_PATH="+pathFile, "RUNNER_TEMP="+r.temp,
		"PATH="+strings.Join(append(r.path, os.Getenv("PATH")), string(os.PathListSeparator)))
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v))
	}
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("step %q: %v", s.Name, err)
	}
	if s.ID != "" {
		r.outputs[s.ID] = readKV(r.t, out)
	}
	added, _ := os.ReadFile(pathFile)
	for _, l := range strings.Split(strings.TrimSpace(string(added)), "\n") {
		if l != "" {
			r.path = append([]string{l}, r.path...)
		}
	}
	return code, string(b)
}

func readKV(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

func loadAction(t *testing.T, root string) action {
	var a action
	decodeFile(t, filepath.Join(root, "action.yml"), &a, true)
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml: runs.using %q, want composite", a.Runs.Using)
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	return a
}

// TestActionRuns runs the action's shell steps as a runner would, on the
// built-in example (errors: exit 1) and on a clean manifest (exit 0), and
// checks the SARIF report, the annotations and the outputs.
func TestActionRuns(t *testing.T) {
	root := repoRoot(t)
	a := loadAction(t, root)
	clean := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - name: web
        image: nginx:1.27
        resources:
          requests: {cpu: 100m, memory: 128Mi}
          limits: {memory: 128Mi}
`
	for _, tc := range []struct {
		name     string
		path     string
		wantCode string
	}{
		{"example with errors", "examples", "1"},
		{"clean manifest", "clean.yaml", "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.CopyFS(filepath.Join(ws, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, "clean.yaml"), []byte(clean), 0o644); err != nil {
				t.Fatal(err)
			}
			r := &runner{t: t, root: root, workspace: ws, temp: t.TempDir(), outputs: map[string]map[string]string{},
				inputs: map[string]string{}}
			for name, in := range a.Inputs {
				r.inputs[name] = in.Default
			}
			r.inputs["path"] = tc.path
			var lintOut string
			var uploaded bool
			for _, s := range a.Runs.Steps {
				switch {
				case s.Uses != "":
					if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
						if got := r.eval(s.With["sarif_file"]); got != r.inputs["sarif-file"] {
							t.Errorf("upload-sarif uploads %q, want the sarif-file input %q", got, r.inputs["sarif-file"])
						}
						uploaded = strings.Contains(s.If, "inputs.upload-sarif") && strings.Contains(s.If, "hashFiles(inputs.sarif-file)")
					}
					continue // actions/setup-go: Go is already here
				case s.Name == "Result":
					code, out := r.step(s)
					if want := tc.wantCode; strings.TrimSpace(want) != "" && code != atoi(want) {
						t.Errorf("the action ends with exit %d, want %s\n%s", code, want, out)
					}
					continue
				}
				code, out := r.step(s)
				if code != 0 {
					t.Fatalf("step %q exited %d:\n%s", s.Name, code, out)
				}
				if s.ID == "lint" {
					lintOut = out
				}
			}
			if !uploaded {
				t.Error("no upload-sarif step guarded by the upload-sarif input and the file's existence")
			}
			if got := r.outputs["lint"]["exit-code"]; got != tc.wantCode {
				t.Fatalf("exit-code output %q, want %s; lint printed:\n%s", got, tc.wantCode, lintOut)
			}
			checkSARIF(t, filepath.Join(ws, r.inputs["sarif-file"]), tc.wantCode == "1")
			if tc.wantCode == "1" && !strings.Contains(lintOut, "::error file=examples/") {
				t.Errorf("no GitHub error annotation in the lint step's output:\n%s", lintOut)
			}
		})
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func checkSARIF(t *testing.T, path string, wantResults bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the lint step wrote no SARIF report: %v", err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Name string } `json:"driver"`
			} `json:"tool"`
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("%s is not JSON: %v", path, err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "winkube" {
		t.Fatalf("%s: not a winkube SARIF 2.1.0 log: version %q, %d runs", path, log.Version, len(log.Runs))
	}
	if got := len(log.Runs[0].Results) > 0; got != wantResults {
		t.Errorf("%s: %d results, want results: %v", path, len(log.Runs[0].Results), wantResults)
	}
}
