package inputs

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// nested finds the charts and kustomizations inside folder dir (not dir
// itself), and the manifest files outside them, as manifest.Inputs would
// walk them: hidden folders skipped, *.yaml, *.yml and *.json in lexical
// order. A chart's or kustomization's files are its own: they are not
// manifests (values.yaml, templates) or are read through the build.
func nested(dir string) (subs []string, files []string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // manifest.Inputs reports it when the folder is walked plainly
		}
		if d.IsDir() {
			if p == dir {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if k := Kind(p); k == KindChart || k == KindKustomization {
				subs = append(subs, p)
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".yaml", ".yml", ".json":
			files = append(files, p)
		}
		return nil
	})
	return subs, files
}
