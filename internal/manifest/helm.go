package manifest

import (
	"bytes"
	"fmt"
)

// helmWords mark a Go template action as Helm's: it references chart data.
// Plain "{{ }}" can appear legitimately in annotations (alert templates).
var helmWords = [][]byte{[]byte(".Values"), []byte(".Release"), []byte(".Chart"), []byte("include "), []byte("template "), []byte(".Capabilities")}

// helmTemplate reports a document that still holds Helm template actions.
// It looks at the raw text: such documents are often not valid YAML, and
// when they are, their values are not the ones that would be applied.
//
// One pass, linear in the document even for runs of "{{": an action runs
// from a "{{" to the next "}}", and of the actions that share a "}}" only
// the first, which holds the others, is looked at.
func helmTemplate(doc Document) *Error {
	data := doc.Data
	for j := 0; j < len(data); {
		k := bytes.Index(data[j:], []byte("{{"))
		if k < 0 {
			return nil
		}
		j += k
		end := bytes.Index(data[j+2:], []byte("}}"))
		if end < 0 {
			return nil
		}
		action := data[j : j+2+end+2]
		if isHelmAction(action) {
			line := doc.Line + bytes.Count(data[:j], []byte("\n"))
			col := j - bytes.LastIndexByte(data[:j], '\n')
			return &Error{File: doc.File, Line: line, Column: col,
				Msg:  fmt.Sprintf("unrendered Helm template expression %q", clip(string(action))),
				Hint: "render it first: helm template ./chart | winkube lint -", Class: ErrTemplate}
		}
		j += len(action)
	}
	return nil
}

func isHelmAction(action []byte) bool {
	for _, w := range helmWords {
		if bytes.Contains(action, w) {
			return true
		}
	}
	return false
}
