package fidelity

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/simulate"
)

// FailuresDir is where mismatching cases are written, relative to the
// package directory (a test's working directory).
const FailuresDir = "testdata/failures"

// WriteFailure writes a mismatching case to dir as a manifest of its nodes,
// RuntimeClasses and pods, headed by comments with the seed, the
// mismatches and both outcomes. It returns the file's path.
func WriteFailure(dir string, cs *Case, real []Outcome, res *simulate.Result, diffs []string) (string, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# winkube simulate disagrees with kube-apiserver/kube-scheduler v1.36.3 on this case.\n")
	fmt.Fprintf(&b, "# seed: %d\n# case: %d\n", cs.Seed, cs.Index)
	fmt.Fprintf(&b, "# regenerate: go test ./test/fidelity -run TestFidelity -fidelity.seed=%d -fidelity.case=%d\n", cs.Seed, cs.Index)
	fmt.Fprintf(&b, "# Every run of TestFidelity replays this file; keep it as a regression case once fixed.\n#\n# mismatches:\n")
	for _, d := range diffs {
		for _, line := range strings.Split(d, "\n") {
			fmt.Fprintf(&b, "#   %s\n", line)
		}
	}
	fmt.Fprintf(&b, "#\n# real outcome (pods created in this order):\n")
	for _, r := range real {
		fmt.Fprintf(&b, "#   %s: %s\n", r.Pod, r.summary())
	}
	if res != nil {
		fmt.Fprintf(&b, "#\n# winkube outcome:\n")
		for i := range res.Pods {
			w := &res.Pods[i]
			s := describeWinkube(w)
			if len(w.Feasible) > 0 {
				s += "; feasible " + strings.Join(w.Feasible, ", ")
			}
			fmt.Fprintf(&b, "#   %s: %s\n", w.Pod, s)
		}
	}
	docs := cs.documents(true)
	data, err := marshalDocs(docs)
	if err != nil {
		return "", err
	}
	b.Write(data)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, cs.Name()+".yaml")
	return path, os.WriteFile(path, b.Bytes(), 0o644)
}

// LoadFixtures reads every *.yaml case in dir (none if dir is missing).
func LoadFixtures(dir string) ([]*Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var cases []*Case
	for _, p := range paths {
		cs, err := loadFixture(p)
		if err != nil {
			return nil, err
		}
		cases = append(cases, cs)
	}
	return cases, nil
}

func loadFixture(path string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cs := &Case{Source: path, Index: -1}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# seed: "); ok {
			cs.Seed, err = strconv.ParseUint(v, 10, 64)
		} else if v, ok := strings.CutPrefix(line, "# case: "); ok {
			cs.Index, err = strconv.Atoi(v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: header %q: %w", path, line, err)
		}
	}
	objs, err := readObjects(path, data)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		switch t := o.Typed.(type) {
		case *corev1.Node:
			cs.Nodes = append(cs.Nodes, t)
		case *nodev1.RuntimeClass:
			cs.RuntimeClasses = append(cs.RuntimeClasses, t)
		case *corev1.Pod:
			cs.Pods = append(cs.Pods, t)
		default:
			return nil, fmt.Errorf("%s: unexpected %s in a fidelity fixture", path, o.Ref())
		}
	}
	if cs.Index < 0 || len(cs.Nodes) == 0 || len(cs.Pods) == 0 {
		return nil, fmt.Errorf("%s: a fixture needs '# seed:' and '# case:' headers, nodes and pods", path)
	}
	return cs, nil
}
