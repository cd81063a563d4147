package report

import "testing"

func TestEscapeMarkdown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"placeholders such as <image-name>, __acrName__ or ${VAR}", `placeholders such as &lt;image-name>, \_\_acrName\_\_ or ${VAR}`},
		{`use C:\data, not /data`, `use C:\\data, not /data`},
		{"stays Pending with `node(s) had untolerated taint {os: windows}`", "stays Pending with `node(s) had untolerated taint {os: windows}`"},
		{"code `a_b*c` and text a_b", "code `a_b*c` and text a\\_b"},
		{"containers[*] | x", `containers[\*] \| x`},
		{"one ` backquote", "one \\` backquote"},
	} {
		if got := EscapeMarkdown(tc.in); got != tc.want {
			t.Errorf("EscapeMarkdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
