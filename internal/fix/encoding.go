package fix

import (
	"bytes"
	"encoding/binary"
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// encoding is how a file's text is stored: UTF-8 with or without a byte
// order mark, or UTF-16 (what Windows PowerShell 5's > writes). fix edits
// UTF-8 and writes the file back as it found it.
type encoding struct {
	bom   bool      // UTF-8 with a byte order mark
	utf16 byteOrder // nil for UTF-8
}

var utf8BOM = []byte("\xef\xbb\xbf")

// decodeFile returns data as UTF-8 without a byte order mark. It refuses
// text it could not write back byte for byte.
func decodeFile(data []byte) ([]byte, encoding, error) {
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		return data[len(utf8BOM):], encoding{bom: true}, nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeUTF16(data, binary.LittleEndian)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data, binary.BigEndian)
	}
	return data, encoding{}, nil
}

var errUTF16 = errors.New("the file is UTF-16 with an odd length or unpaired surrogates; winkube fix cannot write it back unchanged: save it as UTF-8")

func decodeUTF16(data []byte, order byteOrder) ([]byte, encoding, error) {
	enc := encoding{utf16: order}
	body := data[2:]
	if len(body)%2 != 0 {
		return nil, enc, errUTF16
	}
	units := make([]uint16, len(body)/2)
	for i := range units {
		units[i] = order.Uint16(body[2*i:])
	}
	out := make([]byte, 0, len(units))
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	if !bytes.Equal(enc.encode(out), data) {
		return nil, enc, errUTF16
	}
	return out, enc, nil
}

// encode writes UTF-8 text back in the file's encoding.
func (e encoding) encode(text []byte) []byte {
	switch {
	case e.utf16 != nil:
		out := make([]byte, 2, 2+2*len(text))
		e.utf16.PutUint16(out, 0xFEFF)
		for _, u := range utf16.Encode([]rune(string(text))) {
			out = e.utf16.AppendUint16(out, u)
		}
		return out
	case e.bom:
		return append(append([]byte(nil), utf8BOM...), text...)
	}
	return text
}

// byteOrder is binary.LittleEndian or binary.BigEndian.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}
