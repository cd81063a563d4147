package manifest

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Scalars on one line: keys, plain and quoted scalars.

// key reads what starts at offset at as a mapping key: a plain or quoted
// scalar followed by ": " or ":" at the end of the line. isKey is false
// for a scalar that is not a key; ok is false to decline.
func (p *fastParser) key(at int) (key *Node, after int, isKey, ok bool) {
	var end int
	switch p.src[at] {
	case '"', '\'':
		key, end, ok = p.quoted(at)
		if !ok {
			return nil, 0, false, false
		}
		colon := end
		for colon < p.le && p.src[colon] == ' ' {
			colon++
		}
		if colon == p.le || p.src[colon] != ':' {
			return nil, 0, false, true
		}
		end = colon
	default:
		if !plainStart(p.src, at, p.le, false) {
			return nil, 0, false, false
		}
		end = at
		for ; end < p.le; end++ {
			if c := p.src[end]; c == ':' && (end+1 == p.le || p.src[end+1] == ' ') {
				break
			} else if c == ' ' && end+1 < p.le && p.src[end+1] == '#' {
				return nil, 0, false, true // a comment ends a scalar, not a key
			}
		}
		if end == p.le {
			return nil, 0, false, true
		}
		text := strings.TrimRight(p.src[at:end], " ")
		if text == "<<" { // a merge key
			return nil, 0, false, false
		}
		key = p.scalar(TagStr, text, at)
	}
	// yaml.v3 refuses simple keys over 1024 characters; stay well clear.
	if end+1 < p.le && p.src[end+1] != ' ' || end-at > 1000 {
		return nil, 0, false, false
	}
	key.Tag = TagStr
	return key, end + 1, true, true
}

// plainStart reports whether a plain scalar may start at offset at, as
// yaml.v3 decides it: not with an indicator, but "-", "?" and ":"
// followed by a non-space in block context ("-" only, in flow context).
func plainStart(src string, at, le int, flow bool) bool {
	next := byte(' ')
	if at+1 < le {
		next = src[at+1]
	}
	switch src[at] {
	case '-':
		return next != ' '
	case '?', ':':
		return !flow && next != ' '
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		return false
	}
	return true
}

// plain parses a plain scalar that runs to the end of the line or to a
// comment. ": " in it is a mapping where none is allowed: decline.
func (p *fastParser) plain(v int) (*Node, bool) {
	if !plainStart(p.src, v, p.le, false) {
		return nil, false
	}
	end := v
	for ; end < p.le; end++ {
		if c := p.src[end]; c == ':' && (end+1 == p.le || p.src[end+1] == ' ') {
			return nil, false
		} else if c == ' ' && end+1 < p.le && p.src[end+1] == '#' {
			break
		}
	}
	text := strings.TrimRight(p.src[v:end], " ")
	return p.scalar(plainTag(text), text, v), true
}

// plainTag resolves a plain scalar's type as yaml.v3 does (YAML 1.2 core
// schema plus yaml.v3's extras: 0o and 0b, timestamps as strings here).
func plainTag(s string) Tag {
	if s == "" {
		return TagNull
	}
	switch c := s[0]; {
	case c >= '0' && c <= '9', c == '+', c == '-', c == '.':
		return numberTag(s)
	case c == '~':
		if s == "~" {
			return TagNull
		}
	case c == 'n' || c == 'N':
		if s == "null" || s == "Null" || s == "NULL" {
			return TagNull
		}
	case c == 't' || c == 'T':
		if s == "true" || s == "True" || s == "TRUE" {
			return TagBool
		}
	case c == 'f' || c == 'F':
		if s == "false" || s == "False" || s == "FALSE" {
			return TagBool
		}
	}
	return TagStr
}

// numberTag resolves a scalar that starts like a number. Plain decimals
// are settled here; anything else that could be a number (or a timestamp)
// is left to yaml.v3's resolver, so the rules are exactly its own.
func numberTag(s string) Tag {
	digits, numeric := true, true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			digits = false
			numeric = numeric && numberByte[c]
		}
	}
	if digits && len(s) <= 18 && (s[0] != '0' || len(s) == 1) {
		return TagInt
	}
	timestamp := len(s) > 4 && s[4] == '-' && strings.Trim(s[:4], "0123456789") == ""
	if !numeric && !timestamp && !strings.Contains(s, ".inf") && !strings.Contains(s, ".Inf") && !strings.Contains(s, ".INF") && !strings.Contains(s, ".nan") && !strings.Contains(s, ".NaN") && !strings.Contains(s, ".NAN") {
		return TagStr
	}
	n := yaml.Node{Kind: yaml.ScalarNode, Value: s}
	switch n.ShortTag() {
	case "!!int":
		return TagInt
	case "!!float":
		return TagFloat
	}
	return TagStr
}

// numberByte marks the bytes, besides digits, of yaml.v3's numbers:
// signs, points, underscores, 0x/0o/0b prefixes, hex digits, exponents.
var numberByte = func() (t [256]bool) {
	for _, c := range "+-._xXoObBeEaAcCdDfF" {
		t[c] = true
	}
	return t
}()

// quoted parses a single- or double-quoted scalar that closes on its own
// line, and returns the offset after the closing quote.
func (p *fastParser) quoted(v int) (*Node, int, bool) {
	q := p.src[v]
	var b []byte // the value, once it differs from the text
	start := v + 1
	for i := start; i < p.le; i++ {
		c := p.src[i]
		switch {
		case c == q && q == '\'' && i+1 < p.le && p.src[i+1] == '\'':
			b = append(append(b, p.src[start:i]...), '\'')
			i++
			start = i + 1
		case c == q:
			text := p.src[start:i]
			if b != nil {
				text = string(append(b, text...))
			}
			return p.scalar(TagStr, text, v), i + 1, true
		case c == '\\' && q == '"':
			r, n, ok := unescape(p.src[i:p.le])
			if !ok {
				return nil, 0, false
			}
			b = utf8.AppendRune(append(b, p.src[start:i]...), r)
			i += n - 1
			start = i + 1
		}
	}
	return nil, 0, false // it goes on to the next line
}

// unescape decodes the escape sequence at the start of s, as yaml.v3
// does, returning the character and the length of the sequence.
func unescape(s string) (rune, int, bool) {
	if len(s) < 2 {
		return 0, 0, false // a line continuation
	}
	if r, ok := simpleEscapes[s[1]]; ok {
		return r, 2, true
	}
	width := 0
	switch s[1] {
	case 'x':
		width = 2
	case 'u':
		width = 4
	case 'U':
		width = 8
	}
	if width == 0 || len(s) < 2+width {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[2:2+width], 16, 32)
	if err != nil || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF {
		return 0, 0, false
	}
	return rune(v), 2 + width, true
}

var simpleEscapes = map[byte]rune{
	'0': 0, 'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r',
	'e': 0x1B, ' ': ' ', '"': '"', '\'': '\'', '\\': '\\', 'N': 0x85, '_': 0xA0, 'L': 0x2028, 'P': 0x2029,
}
