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
	dir     string
	objs    []built
	patches []string                      // the kustomization's patch files
	files   map[string][]*manifest.Object // parsed resource files, by path
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
	// A field the base lacks came from a patch of the overlay when the
	// patch holds more of its path.
	best := depth(src, fieldPath)
	for _, pf := range o.patches {
		if p := o.source(pf, b); p != nil && depth(p, fieldPath) > best {
			src, file, best = p, pf, depth(p, fieldPath)
		}
	}
	l, c := src.Locate(fieldPath)
	return file, l, c, true
}

// depth is how many segments of the path the object holds.
func depth(o *manifest.Object, path string) int {
	n, d := o.Root, 0
	for _, seg := range manifest.SplitPath(path) {
		var next *manifest.Node
		switch {
		case seg.Bracket && n.Kind == manifest.SequenceNode:
			if i, ok := seg.Index(); ok && i < len(n.Content) {
				next = n.Content[i]
			}
		case n.Kind == manifest.MappingNode:
			next = n.Get(seg.Name)
		}
		if next == nil {
			return d
		}
		n, d = next, d+1
	}
	return d
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
