package chart

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/strvals"

	"github.com/winkube/winkube/internal/manifest"
)

// Options are helm template's: values files and --set values (later ones
// win), the release name and namespace, and the Kubernetes version the
// chart's .Capabilities.KubeVersion reports.
type Options struct {
	Values      []string
	Set         []string
	ReleaseName string // "release-name" when empty, as helm template
	Namespace   string // "default" when empty
	KubeVersion string // e.g. 1.36 or v1.36.3; Helm's default when empty
}

// Is reports whether path is a chart: a folder holding Chart.yaml, or a
// packaged chart (.tgz, .tar.gz).
func Is(p string) bool {
	if strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz") {
		st, err := os.Stat(p)
		return err == nil && st.Mode().IsRegular()
	}
	st, err := os.Stat(filepath.Join(p, "Chart.yaml"))
	return err == nil && st.Mode().IsRegular()
}

// Render renders the chart at dir (a folder or a .tgz) with its
// dependencies from charts/ (nothing is fetched) into one input per
// rendered template, in the order of their names, and a note
// (ErrWindowsNotRendered) for each template with Windows markers that
// rendered nothing with these values, which no check saw. Every problem (a bad
// Chart.yaml, a missing dependency, a template that does not parse or
// execute) is an error at the file and line it concerns.
func Render(dir string, opts Options) ([]manifest.Input, []*manifest.Error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return nil, []*manifest.Error{{File: dir, Msg: "cannot load chart: " + err.Error(), Class: manifest.ErrRead, Err: err,
			Hint: "check Chart.yaml and the chart's files; helm lint " + dir + " says more"}}
	}
	if errs := check(dir, ch); len(errs) > 0 {
		return nil, errs
	}
	vals, errs := values(opts)
	if len(errs) > 0 {
		return nil, errs
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if opts.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(opts.KubeVersion)
		if err != nil {
			return nil, []*manifest.Error{{File: dir, Msg: fmt.Sprintf("--kube-version %q: %v", opts.KubeVersion, err), Class: manifest.ErrInvalid}}
		}
		caps.KubeVersion = *kv
	}
	if kv := ch.Metadata.KubeVersion; kv != "" && !chartutil.IsCompatibleRange(kv, caps.KubeVersion.String()) {
		// helm's own words (pkg/action/action.go, renderResources).
		return nil, []*manifest.Error{{File: filepath.Join(dir, "Chart.yaml"), Line: keyLine(ch, "kubeVersion"), Class: manifest.ErrInvalid,
			Msg:  fmt.Sprintf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", kv, caps.KubeVersion.String()),
			Hint: "pass the cluster's version with --kube-version or --kubernetes-version"}}
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return nil, []*manifest.Error{{File: dir, Msg: "dependencies: " + err.Error(), Class: manifest.ErrInvalid, Err: err}}
	}
	rel := chartutil.ReleaseOptions{Name: or(opts.ReleaseName, "release-name"), Namespace: or(opts.Namespace, "default"), Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(ch, vals, rel, caps)
	if err != nil {
		return nil, []*manifest.Error{{File: dir, Msg: "values: " + err.Error(), Class: manifest.ErrInvalid, Err: err,
			Hint: "the values do not match the chart's values.schema.json"}}
	}
	files, err := engine.Render(ch, top)
	if err != nil {
		return nil, []*manifest.Error{renderError(dir, err)}
	}
	sources := templates(ch)
	var ins []manifest.Input
	for _, name := range slices.Sorted(maps.Keys(files)) {
		out := files[name]
		if strings.HasSuffix(name, "NOTES.txt") || strings.TrimSpace(out) == "" {
			continue
		}
		file := diskPath(dir, name)
		m := newLineMap(file, sources[name], out)
		ins = append(ins, manifest.RenderedInput(file+" (rendered)", []byte(out), m.origin))
	}
	vs, _ := top.Table("Values")
	return ins, windowsNotes(dir, files, sources, vs)
}

// check is helm install's check of the chart: Chart.yaml's metadata, and
// every dependency it lists present in charts/.
func check(dir string, ch *chart.Chart) []*manifest.Error {
	chartFile := filepath.Join(dir, "Chart.yaml")
	if err := ch.Validate(); err != nil {
		return []*manifest.Error{{File: chartFile, Msg: err.Error(), Class: manifest.ErrInvalid, Err: err}}
	}
	var missing []string
	for _, r := range ch.Metadata.Dependencies {
		if !slices.ContainsFunc(ch.Dependencies(), func(d *chart.Chart) bool { return d.Name() == r.Name }) {
			missing = append(missing, r.Name)
		}
	}
	if len(missing) > 0 {
		// helm's own words (pkg/action/install.go, CheckDependencies).
		return []*manifest.Error{{File: chartFile, Line: keyLine(ch, "dependencies"), Class: manifest.ErrRead,
			Msg:  "found in Chart.yaml, but missing in charts/ directory: " + strings.Join(missing, ", "),
			Hint: "run helm dependency build " + dir + " first: winkube fetches nothing"}}
	}
	return nil
}

// values merges the values files and --set values as helm does
// (pkg/cli/values Options.MergeValues), without reading URLs.
func values(opts Options) (map[string]any, []*manifest.Error) {
	out := map[string]any{}
	var errs []*manifest.Error
	for _, f := range opts.Values {
		v, err := chartutil.ReadValuesFile(f)
		if err != nil {
			class := manifest.ErrSyntax
			if errors.Is(err, fs.ErrNotExist) {
				class = manifest.ErrRead
			}
			errs = append(errs, &manifest.Error{File: f, Msg: "values file: " + err.Error(), Class: class, Err: err})
			continue
		}
		out = merge(out, v)
	}
	for _, s := range opts.Set {
		if err := strvals.ParseInto(s, out); err != nil {
			errs = append(errs, &manifest.Error{File: "--set", Msg: fmt.Sprintf("%q: %v", s, err), Class: manifest.ErrInvalid, Err: err,
				Hint: "write --set key=value, nested keys with dots: --set nodeSelector.kubernetes\\.io/os=linux"})
		}
	}
	return out, errs
}

// merge is helm's mergeMaps: b's values win, maps merge key by key.
func merge(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = merge(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// templates maps every template's render name (chart/templates/x.yaml,
// chart/charts/sub/templates/y.yaml) to its text.
func templates(ch *chart.Chart) map[string][]byte {
	out := map[string][]byte{}
	var walk func(c *chart.Chart)
	walk = func(c *chart.Chart) {
		for _, t := range c.Templates {
			out[path.Join(c.ChartFullPath(), t.Name)] = t.Data
		}
		for _, d := range c.Dependencies() {
			walk(d)
		}
	}
	walk(ch)
	return out
}

// diskPath turns a render name into the file a user opens: under the
// chart folder, or inside the package for a .tgz.
func diskPath(dir, name string) string {
	_, rest, _ := strings.Cut(name, "/")
	if !isDir(dir) {
		return dir + ":" + name
	}
	return filepath.Join(dir, filepath.FromSlash(rest))
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// keyLine is the line of a top-level key of Chart.yaml, or 0.
func keyLine(ch *chart.Chart, key string) int {
	for _, f := range ch.Raw {
		if f.Name != "Chart.yaml" {
			continue
		}
		for i, l := range strings.Split(string(f.Data), "\n") {
			if strings.HasPrefix(l, key+":") {
				return i + 1
			}
		}
	}
	return 0
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
