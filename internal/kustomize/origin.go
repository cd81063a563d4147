package kustomize

import (
	"path/filepath"
	"strings"

	"github.com/winkube/winkube/internal/manifest"
)

// built is one object of the build output: its first line there, its
// final kind and name, and the file it came from (relative to the built
// folder; empty for generated objects and remote bases).
type built struct {
	line       int
	kind, name string
	path       string
}

// origins maps positions of the build output back to the resource files.
type origins struct {
	dir   string
	objs  []built
	files map[string][]*manifest.Object // parsed resource files, by path
}

// origin locates the field in the object's resource file: the object of
// the same kind whose name the final name contains (namePrefix and
// nameSuffix add to it), at the field or, when an overlay added the
// field, at its nearest ancestor there. Not safe for concurrent use; the
// engine calls it from one goroutine.
func (o *origins) origin(line int, fieldPath string) (string, int, int, bool) {
	var b *built
	for i := range o.objs {
		if o.objs[i].line <= line {
			b = &o.objs[i]
		}
	}
	if b == nil || b.path == "" {
		return "", 0, 0, false
	}
	file := filepath.Join(o.dir, filepath.FromSlash(b.path))
	src := o.source(file, b)
	if src == nil {
		return file, 1, 1, true
	}
	l, c := src.Locate(fieldPath)
	return file, l, c, true
}

func (o *origins) source(file string, b *built) *manifest.Object {
	if o.files == nil {
		o.files = map[string][]*manifest.Object{}
	}
	objs, ok := o.files[file]
	if !ok {
		ins, _ := manifest.Inputs([]string{file}, nil)
		objs, _ = manifest.ReadAll(ins)
		o.files[file] = objs
	}
	var best *manifest.Object
	for _, s := range objs {
		if s.Kind == b.kind && strings.Contains(b.name, s.Name) && (best == nil || len(s.Name) > len(best.Name)) {
			best = s
		}
	}
	return best
}
