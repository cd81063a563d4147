// Package chromium drives Debian's headless Chromium for the tests that
// render winkube's HTML reports (hack/ensure-chromium.sh installs it).
package chromium

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Path finds the browser; the test fails (never skips) without it.
func Path(t testing.TB) string {
	t.Helper()
	for _, c := range []string{os.Getenv("WINKUBE_CHROMIUM"), "/usr/bin/chromium"} {
		if c != "" {
			if _, err := os.Stat(c); err == nil {
				return c
			}
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	t.Fatal("headless Chromium renders the HTML report in this test and was not found " +
		"($WINKUBE_CHROMIUM, /usr/bin/chromium, chromium on PATH); install it with hack/ensure-chromium.sh")
	return ""
}

// Run runs the browser headless with a fresh profile under dir and returns
// its standard output (the DOM, with --dump-dom).
func Run(t testing.TB, browser, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	profile, err := os.MkdirTemp(dir, "profile-")
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
