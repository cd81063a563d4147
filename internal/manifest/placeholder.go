package manifest

import (
	"fmt"
	"regexp"
	"strings"
)

// placeholderRE matches the unfilled values that templating leaves behind:
// <image-name>, __acrName__, ${VAR} (and the shell's ${VAR/a/b},
// ${VAR:-default} that envsubst-like tools expand), #{token}# (release pipelines' token
// replacement), REPLACE_WITH_NAME, YOUR_REGISTRY.
// A match must stand alone (placeholderAt): .NET configuration keys such
// as Logging__LogLevel__Default are not placeholders.
var placeholderRE = regexp.MustCompile(`<[A-Za-z][A-Za-z0-9_. -]*>|__[A-Za-z][A-Za-z0-9_]*__|\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:/#%^,][^{}]*)?\}|#\{[A-Za-z_][A-Za-z0-9_.-]*\}#|REPLACE_WITH_[A-Z0-9_]+|REPLACE_ME|YOUR_[A-Z0-9_]+`)

// placeholder returns the first placeholder of s that is not part of a
// longer word.
func placeholder(s string) string {
	for _, m := range placeholderRE.FindAllStringIndex(s, -1) {
		if wordByte(s, m[0]-1) || wordByte(s, m[1]) {
			continue
		}
		return s[m[0]:m[1]]
	}
	return ""
}

// wordByte reports whether s[i] exists and is a letter, digit or
// underscore.
func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// placeholderKey reports the fields where a placeholder means the
// manifest cannot be applied as written. Free text (ConfigMap data,
// commands, annotations) may legitimately hold such strings.
func placeholderKey(key string) bool {
	switch key {
	case "image", "name", "namespace", "serviceAccountName", "runtimeClassName", "claimName":
		return true
	}
	return false
}

// placeholders reports template placeholders in identifying fields, once
// per document.
func placeholders(file string, root *Node) []*Error {
	var errs []*Error
	var ph bool
	var walk func(n *Node, key string)
	walk = func(n *Node, key string) {
		switch n.Kind {
		case MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Value)
			}
		case SequenceNode:
			for _, c := range n.Content {
				walk(c, key)
			}
		default:
			if n.Tag != TagStr {
				return
			}
			if !ph && placeholderKey(key) && mayHoldPlaceholder(n.Value) {
				if m := placeholder(n.Value); m != "" {
					ph = true
					errs = append(errs, &Error{File: file, Line: n.Line, Column: n.Column,
						Msg:  fmt.Sprintf("%s: placeholder %q was never filled in", key, m),
						Hint: "substitute the real value (envsubst, your pipeline's token replacement) before linting", Class: ErrPlaceholder})
				}
			}
		}
	}
	walk(root, "")
	return errs
}

// mayHoldPlaceholder is a quick test before the regular expression:
// every placeholder has a "<", "__", "${", "#{", "REPLACE_" or "YOUR_".
func mayHoldPlaceholder(s string) bool {
	return strings.IndexByte(s, '<') >= 0 || strings.Contains(s, "__") || strings.Contains(s, "${") || strings.Contains(s, "#{") ||
		strings.Contains(s, "REPLACE_") || strings.Contains(s, "YOUR_")
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
