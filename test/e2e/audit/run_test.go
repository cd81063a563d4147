package audit

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/cli"
	"github.com/winkube/winkube/internal/golden"
)

// winkube runs the command line in-process and returns its exit code and
// standard output.
func winkube(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

var uidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// checkGolden compares got with testdata/name, after replacing what
// changes from run to run (UIDs).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(uidRE.ReplaceAllString(got, "UID")))
}
