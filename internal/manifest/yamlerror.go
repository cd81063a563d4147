package manifest

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). yaml.v3 reports their line 0-based, one line early.
var parserProblems = []string{
	"did not find expected <",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or",
	"found duplicate %",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlError turns a yaml.v3 error into an *Error with the file position
// and a hint.
func yamlError(file string, line int, data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: file, Line: line, Class: ErrSyntax, Err: err}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		l, _ := strconv.Atoi(m[1])
		msg = m[2]
		for _, p := range parserProblems {
			if strings.HasPrefix(msg, p) {
				l = problemLine(data, msg, l+1)
				e.Column = indentOf(data, l-1) + 1
				break
			}
		}
		e.Line = line + max(l, 1) - 1
	} else if at, ok := badCharacter(data); ok {
		// Reader errors (invalid UTF-8, control characters) carry no line.
		e.Line, e.Column = line+bytes.Count(data[:at], []byte("\n")), column(data, at)
	}
	e.Msg = "invalid YAML: " + msg
	switch {
	case bytes.Contains(data, []byte("{{")):
		e.Hint = "this looks like a Helm template; render it first: helm template ./chart | winkube lint -"
	case strings.Contains(msg, "tab character") || strings.Contains(msg, "cannot start any token") && tabOnLine(data, e.Line-line) >= 0:
		if at := tabOnLine(data, e.Line-line); at >= 0 {
			e.Column = column(data, at)
		}
		e.Hint = "YAML does not allow tabs for indentation; use spaces"
	case strings.Contains(msg, "UTF-8") || strings.Contains(msg, "control characters"):
		e.Hint = "save the file as UTF-8 text"
	default:
		e.Hint = "check the indentation and quoting on this line and the one before it"
	}
	return e
}

// problemLine finds the line of a yaml.v3 parser error. yaml.v3 reports
// where the enclosing block starts, which can be far above the offending
// line; the shortest prefix of the document that fails with the same
// message ends at the offending line. Parsing is sequential, so a binary
// search over prefixes finds it in a few parses (errors only).
func problemLine(data []byte, msg string, reported int) int {
	ends := lineEnds(data)
	fails := func(k int) bool {
		var n yaml.Node
		err := yaml.Unmarshal(data[:ends[k-1]], &n)
		return err != nil && strings.HasSuffix(err.Error(), ": "+msg)
	}
	lo, hi := 1, len(ends)
	if hi == 0 || !fails(hi) {
		return reported
	}
	for lo < hi {
		if mid := (lo + hi) / 2; fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// indentOf returns the indentation of the 0-based line of data: where
// the token yaml.v3 stumbled on starts.
func indentOf(data []byte, line int) int {
	ends := lineEnds(data)
	if line < 0 || line >= len(ends) {
		return 0
	}
	start := 0
	if line > 0 {
		start = ends[line-1]
	}
	n := 0
	for start+n < len(data) && data[start+n] == ' ' {
		n++
	}
	return n
}

// lineEnds returns the offset just past each line of data.
func lineEnds(data []byte) []int {
	var ends []int
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			ends = append(ends, len(data))
			break
		}
		i += j + 1
		ends = append(ends, i)
	}
	return ends
}

// badCharacter finds the first byte yaml.v3's reader refuses: invalid
// UTF-8 or a control character.
func badCharacter(data []byte) (int, bool) {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return i, true
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7F,
			r >= 0x80 && r < 0xA0 && r != 0x85, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r < 0xE000:
			return i, true
		}
		i += n
	}
	return 0, false
}

// tabOnLine returns the offset of the first tab on the 0-based line of
// data, or -1.
func tabOnLine(data []byte, line int) int {
	start := 0
	for ; line > 0; line-- {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			return -1
		}
		start += i + 1
	}
	end := bytes.IndexByte(data[start:], '\n')
	if end < 0 {
		end = len(data) - start
	}
	if i := bytes.IndexByte(data[start:start+end], '\t'); i >= 0 {
		return start + i
	}
	return -1
}

// column is the 1-based column, in characters, of offset at in data.
func column(data []byte, at int) int {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	return utf8.RuneCount(data[start:at]) + 1
}
