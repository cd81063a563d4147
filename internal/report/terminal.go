package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Clean neutralises the characters of s that a terminal would act on
// rather than show, for every string that comes from a cluster, a
// registry or a file name and reaches text output: C0 and C1 controls
// (ESC and CSI start the sequences that write the clipboard, clear the
// screen or set the title), DEL, line breaks (a message cannot forge a
// line of its own), bidirectional overrides and invalid UTF-8 become
// visible escapes such as \x1b and \u202e. Tabs stay. JSON output needs
// none of this: encoding/json escapes controls itself.
func Clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case dangerous(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsCleaning(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c >= 0x7f {
			// Non-ASCII is checked rune by rune.
			for _, r := range s {
				if r == utf8.RuneError || dangerous(r) {
					return true
				}
			}
			return false
		}
	}
	return false
}

func dangerous(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidirectional controls
	}
	return false
}

// CleanLines is Clean for text that is lines by design (an error joining
// several problems): each line is cleaned and the line breaks kept.
func CleanLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	return strings.Join(lines, "\n")
}
