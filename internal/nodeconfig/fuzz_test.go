package nodeconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseValidate: no input may panic the loader or the rules.
func FuzzParseValidate(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*/*")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz", data)
		if err != nil {
			return
		}
		Validate([]*File{file, file}, nil, Options{Root: "/"})
	})
}
