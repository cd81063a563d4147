package fix

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"github.com/winkube/winkube/internal/rule"
)

// Edit is one field edit bound to a document of a file.
type Edit struct {
	Doc  int // document index in the file (manifest.Object.Doc)
	Item int // List item, or -1
	rule.Edit
	Rule  string // the rule whose fix this is
	Title string // the fix's title
}

// Applied reports what happened to one edit.
type Applied struct {
	Edit
	Changed bool  // false when the field already had the value
	Err     error // why the edit could not be made
}

// Apply applies the edits to a file's text. Documents without edits are
// copied byte for byte.
func Apply(data []byte, edits []Edit) ([]byte, []Applied) {
	docs := splitDocs(data)
	byDoc := map[int][]Edit{}
	for _, e := range edits {
		byDoc[e.Doc] = append(byDoc[e.Doc], e)
	}
	var out bytes.Buffer
	var results []Applied
	prev := 0
	for i, d := range docs {
		es := byDoc[i]
		if len(es) == 0 {
			continue
		}
		src := string(data[d.start:d.end])
		for _, e := range es {
			next, err := applyEdit(src, e.Item, e.Edit)
			switch {
			case errors.Is(err, errNoop):
				results = append(results, Applied{Edit: e})
			case err != nil:
				results = append(results, Applied{Edit: e, Err: err})
			default:
				src = next
				results = append(results, Applied{Edit: e, Changed: true})
			}
		}
		out.Write(data[prev:d.start])
		out.WriteString(src)
		prev = d.end
	}
	for doc := range byDoc {
		if doc >= len(docs) {
			for _, e := range byDoc[doc] {
				results = append(results, Applied{Edit: e, Err: fmt.Errorf("document %d not found", doc)})
			}
		}
	}
	out.Write(data[prev:])
	sort.SliceStable(results, func(i, j int) bool { return results[i].Doc < results[j].Doc })
	return out.Bytes(), results
}

type docRange struct{ start, end int }

// splitDocs finds the byte ranges of the non-empty documents, numbered as
// manifest.Splitter numbers them. A range runs from the line after a
// separator up to and including the last line before the next one.
func splitDocs(data []byte) []docRange {
	var docs []docRange
	start := 0
	content := false
	flush := func(end int) {
		if content {
			docs = append(docs, docRange{start, end})
		}
		content = false
	}
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		line := data[pos:next]
		trimmed := bytes.TrimRight(line, "\r\n")
		switch {
		case isSeparator(trimmed):
			flush(pos)
			start = next
		case bytes.Equal(bytes.TrimRight(trimmed, " \t"), []byte("...")):
		default:
			t := bytes.TrimSpace(trimmed)
			if pos == 0 {
				t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
			}
			if len(t) > 0 && t[0] != '#' {
				content = true
			}
		}
		pos = next
	}
	flush(len(data))
	return docs
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t'
}
