package manifest

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
)

// BytesInput is an input whose text is already in memory, named as the
// file it came from (fix re-checks its own output this way).
func BytesInput(name string, data []byte) Input {
	return Input{Name: name, JSON: strings.EqualFold(filepath.Ext(name), ".json"),
		open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
}
