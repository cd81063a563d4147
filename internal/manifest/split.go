package manifest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxDocumentSize bounds one document; memory use follows the largest
// document, never the whole input.
const MaxDocumentSize = 64 << 20

// Document is the raw text of one YAML document of a file.
type Document struct {
	File  string
	Index int // 0-based position of the document in its file
	Line  int // 1-based line of the document's first line
	Data  []byte
}

// Splitter reads the documents of a YAML stream one at a time.
type Splitter struct {
	file  string
	r     *bufio.Reader
	line  int
	index int
	json  bool
	done  bool
}

// NewSplitter reads documents of file from r. A JSON file is one document.
func NewSplitter(file string, r io.Reader, isJSON bool) *Splitter {
	return &Splitter{file: file, r: bufio.NewReaderSize(r, 64<<10), json: isJSON}
}

// Next returns the next document, io.EOF after the last, or an *Error that
// ends the file (binary content, a document over MaxDocumentSize, a read
// failure).
func (s *Splitter) Next() (Document, error) {
	for !s.done {
		doc, err := s.next()
		if err != nil {
			s.done = true
			return Document{}, err
		}
		if doc.Data == nil {
			continue
		}
		doc.Index = s.index
		s.index++
		return doc, nil
	}
	return Document{}, io.EOF
}

func (s *Splitter) next() (Document, error) {
	doc := Document{File: s.file, Line: s.line + 1}
	var buf []byte
	for {
		line, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A very long line: gather it whole.
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = s.r.ReadSlice('\n')
				long = append(long, line...)
				if len(long) > MaxDocumentSize {
					return doc, s.tooLarge(doc.Line)
				}
			}
			line = long
		}
		if len(line) > 0 {
			s.line++
			if s.line == 1 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			if bytes.IndexByte(line, 0) >= 0 {
				return doc, &Error{File: s.file, Line: s.line, Msg: "binary content (NUL byte)", Hint: "winkube reads YAML and JSON text files; remove binary files from the input"}
			}
			if !s.json && isSeparator(line) {
				if hasContent(buf) {
					doc.Data = buf
				}
				return doc, nil
			}
			if !s.json && isDocEnd(line) {
				continue
			}
			buf = append(buf, line...)
			if len(buf) > MaxDocumentSize {
				return doc, s.tooLarge(doc.Line)
			}
		}
		if err == io.EOF {
			s.done = true
			if hasContent(buf) {
				doc.Data = buf
			}
			return doc, nil
		}
		if err != nil {
			return doc, &Error{File: s.file, Line: s.line, Msg: fmt.Sprintf("reading: %v", err)}
		}
	}
}

func (s *Splitter) tooLarge(line int) error {
	return &Error{File: s.file, Line: line, Msg: fmt.Sprintf("document is larger than %d MiB", MaxDocumentSize>>20), Hint: "split it into smaller documents"}
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

func isDocEnd(line []byte) bool {
	return bytes.Equal(bytes.TrimRight(line, " \t\r\n"), []byte("..."))
}

// hasContent reports whether buf has anything but blank and comment lines.
func hasContent(buf []byte) bool {
	for len(buf) > 0 {
		var line []byte
		line, buf, _ = bytes.Cut(buf, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] != '#' {
			return true
		}
	}
	return false
}
