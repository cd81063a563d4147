package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"gopkg.in/yaml.v3"
)

// MaxDocumentSize bounds one document; memory use follows the largest
// document, never the whole input.
const MaxDocumentSize = 64 << 20

// Document is the raw text of one YAML document of a file.
type Document struct {
	File  string
	Index int // 0-based position of the document in its file
	Line  int // 1-based line of the document's first line
	// Start and End are the byte offsets of the document's text in the
	// stream (after UTF-16 decoding): the line after its "---", or the
	// "---" line itself when the document begins on it, up to the start
	// of the next separator. fix edits these ranges.
	Start, End int64
	Data       []byte
	// Tree, when a caller parsed the text already (ParseTree), is what
	// Decode reads instead of Data; positions in it are relative to Line.
	Tree *yaml.Node
	// Err is set instead of Data for a document that could not be read
	// whole (it is over MaxDocumentSize); Decode reports it.
	Err *Error
}

// Splitter reads the documents of a YAML stream one at a time.
type Splitter struct {
	file    string
	r       *bufio.Reader
	line    int
	index   int
	json    bool
	done    bool
	limit   int    // largest document accepted, MaxDocumentSize but for tests
	carry   []byte // content that followed a "---" on its line, for the next document
	carryAt int64  // offset of that "---" line
	begun   bool   // the encoding has been sniffed
	buf     []byte // the document being read, reused
	off     int64  // bytes of the stream consumed
	// pend is the rest of a line that held a lone CR (a line break in
	// YAML, as in classic Mac text), still to be returned as lines.
	pend    []byte
	pendErr error
	// pooled came from the pool (r wraps pooled.r for UTF-16).
	pooled *buffers
}

// buffers pools a splitter's buffers: a folder of small files would
// otherwise allocate them, and grow them, once per file.
type buffers struct {
	r   *bufio.Reader
	doc []byte
}

var pool = sync.Pool{New: func() any { return &buffers{r: bufio.NewReaderSize(nil, 64<<10)} }}

// NewSplitter reads documents of file from r. A JSON file is one document.
// UTF-16 input (what Windows PowerShell's > writes) is read as UTF-8.
func NewSplitter(file string, r io.Reader, isJSON bool) *Splitter {
	b := pool.Get().(*buffers)
	b.r.Reset(r)
	return &Splitter{file: file, r: b.r, buf: b.doc[:0], pooled: b, json: isJSON, limit: MaxDocumentSize}
}

// release hands the buffers back for the next file; the splitter is not
// used again. A buffer grown for a huge document is left to the collector.
func (s *Splitter) release() {
	if b := s.pooled; b != nil {
		b.r.Reset(nil)
		b.doc = nil
		if cap(s.buf) <= 1<<20 {
			b.doc = s.buf[:0]
		}
		pool.Put(b)
		s.pooled, s.r, s.buf = nil, nil, nil
	}
}

// Next returns the next document, io.EOF after the last, or an *Error that
// ends the file (a read failure, an input over its size limit). A document
// over MaxDocumentSize or with binary content comes back with Err set, and
// the documents after it are still read.
func (s *Splitter) Next() (Document, error) {
	for !s.done {
		doc, err := s.next()
		if err != nil {
			s.done = true
			return Document{}, err
		}
		if doc.Data == nil && doc.Err == nil {
			continue
		}
		doc.Index = s.index
		s.index++
		return doc, nil
	}
	return Document{}, io.EOF
}

func (s *Splitter) next() (Document, error) {
	if !s.begun {
		s.begun = true
		if dec := utf16Source(s.r); dec != nil {
			s.r = bufio.NewReaderSize(dec, 64<<10)
		}
	}
	doc := Document{File: s.file, Line: s.line + 1, Start: s.off}
	buf := s.buf[:0]
	defer func() { s.buf = buf[:0] }()
	if s.carry != nil {
		doc.Line, doc.Start, buf, s.carry = s.line, s.carryAt, append(buf, s.carry...), nil
	}
	for {
		start := s.off
		line, long, err := s.readLine()
		if long {
			doc.Err, buf = s.tooLarge(doc.Line), nil
		}
		if len(line) > 0 {
			s.line++
			if s.line == 1 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			if !s.json && isSeparator(line) {
				// "--- {a: 1}" or "--- |": the rest of the line belongs to
				// the next document; blank the marker to keep columns.
				if rest := line[3:]; hasContent(rest) {
					s.carry, s.carryAt = append(bytes.Repeat([]byte(" "), 3), rest...), start
				}
				doc.End = start
				return s.finish(doc, buf), nil
			}
			if !s.json && isDocEnd(line) {
				// "..." ends the document; what follows starts a new one
				// even without a "---".
				doc.End = start
				return s.finish(doc, buf), nil
			}
			if i := bytes.IndexByte(line, 0); i >= 0 && doc.Err == nil {
				// Binary content is an error for this document only: the
				// documents after the next separator are still read.
				doc.Err, buf = &Error{File: s.file, Line: s.line, Column: i + 1, Msg: "binary content (NUL byte)",
					Hint: "winkube reads YAML and JSON text files; remove binary files from the input", Class: ErrBinary}, nil
			}
			if doc.Err == nil {
				buf = append(buf, line...)
			}
			if len(buf) > s.limit {
				doc.Err, buf = s.tooLarge(doc.Line), nil
			}
		}
		if err == io.EOF {
			s.done = true
			doc.End = s.off
			return s.finish(doc, buf), nil
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return doc, e
			}
			return doc, &Error{File: s.file, Line: s.line, Msg: fmt.Sprintf("reading: %v", err), Hint: "check that the file is readable", Class: ErrRead, Err: err}
		}
	}
}

// finish keeps the document, in a buffer of its own, if it has content.
func (s *Splitter) finish(doc Document, buf []byte) Document {
	if doc.Err == nil && hasContent(buf) {
		doc.Data = bytes.Clone(buf)
	}
	return doc
}

// readLine returns the next line with its line break, and counts the
// bytes it consumed. A lone CR ends a line too (YAML counts it as a line
// break); it comes back as LF, so offsets and columns stay the same.
func (s *Splitter) readLine() (line []byte, long bool, err error) {
	if s.pend == nil {
		start := s.off
		line, long, err = s.readRaw()
		if long || bytes.IndexByte(line, '\r') < 0 {
			return line, long, err
		}
		s.off = start
		s.pend, s.pendErr = bytes.Clone(line), err
	}
	line, err = s.pend, nil
	if i := loneCR(line); i >= 0 {
		line[i] = '\n'
		line, s.pend = line[:i+1], line[i+1:]
	} else {
		s.pend = s.pend[len(line):]
	}
	if len(s.pend) == 0 {
		s.pend, err = nil, s.pendErr
	}
	s.off += int64(len(line))
	return line, false, err
}

// loneCR is the index of the first CR not followed by LF, or -1.
func loneCR(line []byte) int {
	for i := 0; i < len(line); i++ {
		j := bytes.IndexByte(line[i:], '\r')
		if j < 0 {
			return -1
		}
		i += j
		if i+1 == len(line) || line[i+1] != '\n' {
			return i
		}
	}
	return -1
}

// readRaw returns the next line up to LF. A line longer than the bufio
// buffer is gathered whole, up to the document limit; past that it is
// skipped and readRaw returns just its line break, with long set.
func (s *Splitter) readRaw() (line []byte, long bool, err error) {
	line, err = s.r.ReadSlice('\n')
	s.off += int64(len(line))
	if err != bufio.ErrBufferFull {
		return line, false, err
	}
	gathered := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		line, err = s.r.ReadSlice('\n')
		s.off += int64(len(line))
		if len(gathered) <= s.limit {
			gathered = append(gathered, line...)
		}
	}
	if len(gathered) > s.limit {
		return []byte("\n")[:min(len(line), 1)], true, err
	}
	return gathered, false, err
}

func (s *Splitter) tooLarge(line int) *Error {
	size := fmt.Sprintf("%d MiB", s.limit>>20)
	if s.limit < 1<<20 {
		size = fmt.Sprintf("%d bytes", s.limit)
	}
	return &Error{File: s.file, Line: line, Msg: "document is larger than " + size, Hint: "split it into smaller documents", Class: ErrTooLarge}
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := line[3:]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

func isDocEnd(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("...")) {
		return false
	}
	rest := bytes.TrimLeft(line[3:], " \t")
	return len(rest) == 0 || rest[0] == '#' || rest[0] == '\n' || rest[0] == '\r'
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

// Split returns the documents of data as the Splitter numbers them, with
// their byte ranges; fix edits by these ranges so that it and lint always
// agree on which document is which.
func Split(file string, data []byte, isJSON bool) ([]Document, error) {
	s := NewSplitter(file, bytes.NewReader(data), isJSON)
	defer s.release()
	var docs []Document
	for {
		doc, err := s.Next()
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, doc)
	}
}
