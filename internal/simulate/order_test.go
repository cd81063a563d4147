package simulate

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// stages is the package's order of files, as doc.go describes it: a file
// may use what files of its own stage or of an earlier one declare, never
// a later stage's.
var stages = []struct {
	name  string
	files []string
}{
	{"input", []string{"message.go", "resources.go", "parallel.go", "profile.go", "schedconfig.go", "memo.go", "api.go"}},
	{"admission", []string{"admission.go"}},
	{"pod", []string{"interpod.go", "spread.go", "schedpod.go", "filters.go", "nodes.go"}},
	{"cluster state", []string{"interpodcounts.go", "spreadcounts.go", "score.go", "nodeimages.go", "fastheap.go", "decision.go", "tmpl.go", "scheduler.go"}},
	{"scheduling cycle", []string{"softspread.go", "interpodscore.go", "scored.go", "fast.go", "decide.go", "explain.go", "daemonset.go"}},
	{"kubelet", []string{"kubelet.go", "images.go"}},
	{"workloads", []string{"workloads.go", "defaultselector.go"}},
	{"summary", []string{"summary.go", "counts.go", "deps.go"}},
	{"run", []string{"runner.go", "max.go", "run.go"}},
}

// TestFileOrder holds the package's files to their stages: no file uses a
// name (type, function, method, field, variable or constant) declared in
// a file of a later stage. It type-checks the package against its
// dependencies' export data, which go list finds in the build cache.
func TestFileOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package with go list's export data")
	}
	stage := map[string]int{}
	for i, s := range stages {
		for _, f := range s.files {
			stage[f] = i
		}
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := stage[name]; !ok && name != "doc.go" {
			t.Errorf("%s is in no stage: add it to stages here and to doc.go's order of the files", name)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no Go files in the working directory: run the test in its package's folder (go test does)")
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", exportData(t))}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := conf.Check("github.com/winkube/winkube/internal/simulate", fset, files, info)
	if err != nil {
		t.Fatalf("type-checking the package: %v", err)
	}
	var bad []string
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !declaredAtTop(pkg, obj) {
			continue
		}
		from, to := fset.Position(id.Pos()), fset.Position(obj.Pos())
		if stage[from.Filename] < stage[to.Filename] {
			bad = append(bad, fmt.Sprintf("%s: %s is declared in %s (stage %s), later than %s (stage %s)",
				from, obj.Name(), to.Filename, stages[stage[to.Filename]].name, from.Filename, stages[stage[from.Filename]].name))
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// declaredAtTop reports whether obj is a package-level name, a method or
// a struct field: what one file can take from another.
func declaredAtTop(pkg *types.Package, obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		return o.Signature().Recv() != nil || o.Parent() == pkg.Scope()
	case *types.Var:
		return o.IsField() || o.Parent() == pkg.Scope()
	}
	return obj.Parent() == pkg.Scope()
}

// exportData returns a lookup of the package's dependencies' export data,
// as go list -export reports it.
func exportData(t *testing.T) func(path string) (io.ReadCloser, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	export := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), " "); ok && file != "" {
			export[path] = file
		}
	}
	return func(path string) (io.ReadCloser, error) {
		file, ok := export[path]
		if !ok {
			return nil, fmt.Errorf("go list -export lists no export data for %s", path)
		}
		return os.Open(file)
	}
}
