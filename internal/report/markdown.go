package report

import "strings"

// markdownEscaper escapes what Markdown would otherwise eat in plain text:
// backslashes (C:\data), emphasis (__acrName__), raw HTML (<image-name>)
// and table cell separators. Brackets stay: without a link definition
// they render as themselves, and containers[0] reads better unescaped.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", "&lt;", "|", `\|`)

// EscapeMarkdown renders rule documentation, which is plain text with
// `code` in backquotes, as Markdown: text outside code spans is escaped,
// code spans are kept. SARIF help and docs/rules.md both use it.
func EscapeMarkdown(s string) string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		// An unpaired backquote opens no code span: escape everything.
		return strings.ReplaceAll(markdownEscaper.Replace(s), "`", "\\`")
	}
	for i := 0; i < len(parts); i += 2 {
		parts[i] = markdownEscaper.Replace(parts[i])
	}
	return strings.Join(parts, "`")
}
