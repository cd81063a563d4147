package inputs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/winkube/winkube/internal/chart"
	"github.com/winkube/winkube/internal/cloudprofile"
	"github.com/winkube/winkube/internal/kustomize"
	"github.com/winkube/winkube/internal/manifest"
)

// Options configure the rendering of charts, and the Kubernetes minor
// version node-pool definitions are checked against.
type Options struct {
	Chart chart.Options
	Minor int
}

// Resolve turns arguments into inputs, in order: a folder with
// Chart.yaml or a packaged chart (.tgz) is rendered as helm template
// renders it, a folder with a kustomization file is built as kustomize
// build builds it, and anything else (files, folders of manifests, - for
// stdin) is read as manifest.Inputs reads it; a folder holding charts or
// kustomizations has them rendered or built and the rest of its
// manifests read. Render and build failures
// are errors at the template or kustomization line, like any input
// problem; a chart's Windows templates that rendered nothing come back as
// notes among them (chart.ErrWindowsNotRendered), which front-ends report
// as findings of their rule, not as failures.
func Resolve(args []string, stdin io.Reader, opts Options) ([]manifest.Input, []*manifest.Error) {
	var ins []manifest.Input
	var errs []*manifest.Error
	add := func(i []manifest.Input, e []*manifest.Error) {
		ins = append(ins, i...)
		errs = append(errs, e...)
	}
	for _, arg := range args {
		switch Kind(arg) {
		case KindChart:
			add(chart.Render(arg, opts.Chart))
		case KindKustomization:
			add(kustomize.Build(arg))
		case KindNodePools:
			errs = append(errs, nodePools(arg, opts.Minor)...)
		default:
			subs, files := nestedIn(arg)
			if subs == nil {
				add(manifest.Inputs([]string{arg}, stdin))
				continue
			}
			// A folder holding charts or kustomizations: those are
			// rendered or built, the other manifests read as they are.
			if len(files) > 0 {
				add(manifest.Inputs(files, stdin))
			}
			in, e := Resolve(subs, stdin, opts)
			add(in, e)
		}
	}
	return ins, errs
}

// What an argument is.
const (
	KindFiles         = "files"
	KindChart         = "chart"
	KindKustomization = "kustomization"
	KindNodePools     = "node pools"
)

// Kind says how Resolve reads an argument.
func Kind(arg string) string {
	if arg == "-" {
		return KindFiles
	}
	if chart.Is(arg) {
		return KindChart
	}
	if nodePoolFile(arg) {
		return KindNodePools
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() && kustomize.File(arg) != "" {
		return KindKustomization
	}
	return KindFiles
}

// nestedIn is nested for a folder argument, nothing for anything else.
func nestedIn(arg string) ([]string, []string) {
	if arg == "-" {
		return nil, nil
	}
	if st, err := os.Stat(arg); err != nil || !st.IsDir() {
		return nil, nil
	}
	return nested(arg)
}

// Rendered reports whether any input was rendered from a chart or a
// kustomization, whose text no file holds.
func Rendered(ins []manifest.Input) bool {
	for _, in := range ins {
		if in.Origin != nil {
			return true
		}
	}
	return false
}

// nodePoolFile: a node-pool definition that is not a Kubernetes manifest
// (Terraform, a script, Bicep, an ARM template, an eksctl ClusterConfig).
// Karpenter NodePools are manifests and are read as such.
func nodePoolFile(arg string) bool {
	st, err := os.Stat(arg)
	if err != nil || st.IsDir() || !cloudprofile.Is(arg) {
		return false
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".yaml", ".yml":
		return !isKarpenter(arg)
	}
	return true
}

func isKarpenter(arg string) bool {
	data, err := manifest.ReadFile(arg, 0)
	return err == nil && strings.Contains(string(data), "karpenter.sh/")
}

// nodePools checks a node-pool definition: each problem found in it is
// an error at its line, so lint reports it like any input problem.
func nodePools(arg string, minor int) []*manifest.Error {
	pr, err := cloudprofile.Load(arg)
	if err != nil {
		var e *manifest.Error
		if errors.As(err, &e) {
			return []*manifest.Error{e}
		}
		return []*manifest.Error{{File: arg, Msg: err.Error(), Class: manifest.ErrRead, Err: err}}
	}
	var out []*manifest.Error
	for _, n := range append(pr.Notes, pr.Retired(minor)...) {
		if n.Check == "" {
			continue
		}
		out = append(out, &manifest.Error{File: n.File, Line: n.Line, Msg: n.Msg + " [" + n.Check + "]", Class: manifest.ErrInvalid,
			Hint: "pass it as --cluster " + arg + " to check manifests against these pools"})
	}
	return out
}
