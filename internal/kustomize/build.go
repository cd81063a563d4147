package kustomize

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/manifest"
)

// File returns the kustomization file of folder dir, or "" when it has
// none.
func File(dir string) string {
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// Build runs kustomize build on dir with kustomize's defaults (files
// only from under dir, plugins and Helm inflation off) and returns its
// output as one input. Origin annotations are asked for whatever the
// kustomization says, so every object knows its source file.
func Build(dir string) ([]manifest.Input, []*manifest.Error) {
	kfile := File(dir)
	if kfile == "" {
		return nil, []*manifest.Error{{File: dir, Msg: "no kustomization.yaml, kustomization.yml or Kustomization", Class: manifest.ErrRead}}
	}
	abs, err := filepath.Abs(kfile)
	if err != nil {
		return nil, []*manifest.Error{{File: kfile, Msg: err.Error(), Class: manifest.ErrRead, Err: err}}
	}
	fs := originFS{FileSystem: filesys.MakeFsOnDisk(), kfile: abs}
	out, objs, err := run(fs, dir)
	if err != nil {
		return nil, []*manifest.Error{buildError(dir, kfile, err)}
	}
	name := dir + " (kustomize build)"
	o := &origins{dir: dir, objs: objs, patches: patchFiles(dir, kfile)}
	return []manifest.Input{manifest.RenderedInput(name, out, o.origin)}, nil
}

// run builds, turning a panic of the kustomize API on odd input into an
// error.
func run(fs filesys.FileSystem, dir string) (out []byte, objs []built, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kustomize failed: %v", r)
		}
	}()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	if err != nil {
		return nil, nil, err
	}
	line := 1
	var b strings.Builder
	for i, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			return nil, nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
			line++
		}
		bo := built{line: line, kind: r.GetKind(), name: r.GetName()}
		if o, err := r.GetOrigin(); err == nil && o != nil && o.Repo == "" {
			bo.path = o.Path
		}
		objs = append(objs, bo)
		b.Write(y)
		line += strings.Count(string(y), "\n")
	}
	return []byte(b.String()), objs, nil
}

// originFS is the disk, except that the kustomization being built asks
// for origin annotations (buildMetadata: [originAnnotations]).
type originFS struct {
	filesys.FileSystem
	kfile string
}

func (f originFS) ReadFile(p string) ([]byte, error) {
	data, err := f.FileSystem.ReadFile(p)
	if err != nil || filepath.Clean(p) != f.kfile {
		return data, err
	}
	var k map[string]any
	if yaml.Unmarshal(data, &k) != nil || k == nil {
		return data, nil // kustomize reports it
	}
	meta, _ := k["buildMetadata"].([]any)
	for _, m := range meta {
		if m == types.OriginAnnotations {
			return data, nil
		}
	}
	k["buildMetadata"] = append(meta, types.OriginAnnotations)
	out, err := yaml.Marshal(k)
	if err != nil {
		return data, nil
	}
	return out, nil
}

// quoted finds the resources kustomize names in its errors
// ("accumulating resources from '../base'").
var quoted = regexp.MustCompile(`from '([^']+)'`)

// buildError locates a build failure at the line of the kustomization
// that names the path it failed on, when there is one.
func buildError(dir, kfile string, err error) *manifest.Error {
	e := &manifest.Error{File: kfile, Msg: "kustomize build: " + err.Error(), Class: manifest.ErrRead, Err: err,
		Hint: "kustomize build " + dir + " reproduces it"}
	data, rerr := manifest.ReadFile(kfile, 0)
	if rerr != nil {
		return e
	}
	lines := strings.Split(string(data), "\n")
	for _, m := range quoted.FindAllStringSubmatch(err.Error(), -1) {
		ref := strings.TrimSuffix(m[1], "/")
		for i, l := range lines {
			if t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "-")); ref != "" && (t == ref || t == ref+"/" || strings.HasSuffix(ref, "/"+strings.Trim(t, `"' `))) {
				e.Line, e.Column = i+1, strings.Index(l, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "-")))+1
				return e
			}
		}
	}
	return e
}

// patchFiles are the files the kustomization patches with (patches[].path,
// patchesStrategicMerge), for positions of the fields they add.
func patchFiles(dir, kfile string) []string {
	data, err := manifest.ReadFile(kfile, 0)
	if err != nil {
		return nil
	}
	var k struct {
		Patches []struct {
			Path string `json:"path"`
		} `json:"patches"`
		PatchesStrategicMerge []string `json:"patchesStrategicMerge"`
	}
	if yaml.Unmarshal(data, &k) != nil {
		return nil
	}
	var out []string
	for _, p := range k.Patches {
		if p.Path != "" {
			out = append(out, filepath.Join(dir, p.Path))
		}
	}
	for _, p := range k.PatchesStrategicMerge {
		if !strings.Contains(p, "\n") { // an inline patch, not a file
			out = append(out, filepath.Join(dir, p))
		}
	}
	return out
}
