package manifest

import (
	"bufio"
	"encoding/binary"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// utf16Source returns a reader of r's text as UTF-8 when r starts with a
// UTF-16 byte order mark, or nil. Windows PowerShell 5's `>` writes UTF-16
// LE; without this such a file would look binary (every other byte is NUL).
func utf16Source(r *bufio.Reader) io.Reader {
	bom, err := r.Peek(2)
	if err != nil {
		return nil
	}
	var order binary.ByteOrder
	switch {
	case bom[0] == 0xFF && bom[1] == 0xFE:
		order = binary.LittleEndian
	case bom[0] == 0xFE && bom[1] == 0xFF:
		order = binary.BigEndian
	default:
		return nil
	}
	r.Discard(2)
	return &utf16Reader{r: r, order: order}
}

// utf16Reader decodes UTF-16 to UTF-8, a few KiB at a time.
type utf16Reader struct {
	r     *bufio.Reader
	order binary.ByteOrder
	buf   []byte // decoding buffer, reused
	out   []byte // decoded, not yet returned
	err   error
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// fill decodes up to 2048 code units. A surrogate pair split across calls
// is kept whole by peeking at the next unit; an unpaired surrogate becomes
// U+FFFD, as utf16.Decode does.
func (u *utf16Reader) fill() {
	buf := u.buf[:0]
	for range 2048 {
		c, err := u.unit()
		if err != nil {
			u.err = err
			break
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			if next, err := u.r.Peek(2); err == nil {
				if r2 := rune(u.order.Uint16(next)); utf16.DecodeRune(r, r2) != utf8.RuneError {
					u.r.Discard(2)
					r = utf16.DecodeRune(r, r2)
				} else {
					r = utf8.RuneError
				}
			} else {
				r = utf8.RuneError
			}
		}
		buf = utf8.AppendRune(buf, r)
	}
	u.buf, u.out = buf, buf
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	if _, err := io.ReadFull(u.r, b[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return 0, io.EOF // a trailing odd byte is dropped
		}
		return 0, err
	}
	return u.order.Uint16(b[:]), nil
}
