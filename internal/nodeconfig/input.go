package nodeconfig

import (
	"errors"
	"fmt"

	"github.com/winkube/winkube/internal/manifest"
)

// MaxFileSize bounds one node configuration file. Real ones are a few
// kilobytes; a CNI conflist with every HNS policy spelled out stays under
// 100 KiB.
const MaxFileSize = 4 << 20

// MaxDepth bounds nesting (objects, arrays, inline tables) before any
// parser runs: go-toml's parser recurses once per level, and a 2 MB file
// of [ overflows the goroutine stack, which no recover catches. Real
// configurations nest under 10 levels.
const MaxDepth = 64

// ReadFile reads the node configuration file at path with lint's input
// rules: regular files only (a FIFO is refused without blocking, a device
// such as /dev/zero without reading), at most MaxFileSize bytes.
func ReadFile(path string) ([]byte, error) {
	data, err := manifest.ReadFile(path, MaxFileSize)
	if err == nil {
		return data, nil
	}
	var me *manifest.Error
	if errors.As(err, &me) {
		msg := me.Msg
		if me.Hint != "" {
			msg += " (" + me.Hint + ")"
		}
		return nil, &LoadError{File: path, Msg: msg}
	}
	return nil, &LoadError{File: path, Msg: "cannot read: " + err.Error()}
}

// checkDepth refuses data nested deeper than MaxDepth, counting [ and {
// outside strings and comments in JSON, TOML and flow YAML alike.
func checkDepth(path string, data []byte) error {
	depth := 0
	var quote byte // the open string's quote, 0 outside strings
	line, col := 1, 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
			if quote == '\'' {
				// A single-quoted YAML or TOML literal ends at the line
				// in TOML; YAML's may continue, which only over-counts.
				quote = 0
			}
			continue
		}
		switch {
		case quote == '"' && c == '\\':
			i++
			col++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return &LoadError{File: path, Line: line, Column: col, Msg: fmt.Sprintf(
					"nested more than %d levels deep: not a node configuration (refused before parsing)", MaxDepth)}
			}
		case c == ']' || c == '}':
			depth = max(depth-1, 0)
		}
	}
	return nil
}
