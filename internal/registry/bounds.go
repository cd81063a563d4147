package registry

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/winkube/winkube/internal/manifest"
)

// Bounds on what a registry may send, whatever it claims.
const (
	// MaxRedirects is the most redirects one request follows: net/http's
	// own default, which go-containerregistry's SSRF redirect check
	// replaces with none at all.
	MaxRedirects = 10
	// MaxBody bounds every response body. Manifests and indexes are a
	// few KiB (registries refuse pushes over 4 MiB, the OCI distribution
	// spec's floor); winkube never downloads a layer.
	MaxBody = 16 << 20
	// MaxConfig bounds an image's config blob: a Windows image's config
	// with its full history is tens of KiB.
	MaxConfig = 4 << 20
)

// RedirectError is a request that redirected more than MaxRedirects times.
type RedirectError struct {
	URL  string
	Hops int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("stopped after %d redirects (last to %s)", e.Hops, e.URL)
}

// TooLargeError is a response body over its limit.
type TooLargeError struct {
	What  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d MiB", e.What, e.Limit>>20)
}

// bounded is the innermost transport: it counts the redirects a request
// went through (net/http sets Response on a redirect's request) and cuts
// every response body at MaxBody.
type bounded struct{ next http.RoundTripper }

func (b bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	hops := 0
	for r := req; r.Response != nil && r.Response.Request != nil; r = r.Response.Request {
		hops++
	}
	if hops > MaxRedirects {
		return nil, &RedirectError{URL: req.URL.Redacted(), Hops: MaxRedirects}
	}
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	what := "a response from " + req.URL.Host
	resp.Body = limitedBody{manifest.LimitReader(resp.Body, MaxBody, func() error { return &TooLargeError{What: what, Limit: MaxBody} }), resp.Body}
	return resp, nil
}

// limitedBody reads a response body cut at MaxBody and closes the body.
type limitedBody struct {
	io.Reader
	io.Closer
}

// readAtMost reads r whole, failing past limit bytes.
func readAtMost(r io.Reader, limit int64, what string) ([]byte, error) {
	b, over, err := manifest.ReadAtMost(r, limit)
	if over {
		return nil, &TooLargeError{What: what, Limit: limit}
	}
	return b, err
}

// boundKind classifies the bound errors.
func boundKind(err error) (Kind, bool) {
	var re *RedirectError
	var te *TooLargeError
	switch {
	case errors.As(err, &re):
		return TooManyRedirects, true
	case errors.As(err, &te):
		return TooLarge, true
	}
	return "", false
}
