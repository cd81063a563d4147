package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Kind classifies a resolution failure.
type Kind string

const (
	NotFound     Kind = "not found"
	Unauthorized Kind = "unauthorized"
	RateLimited  Kind = "rate limited"
	Timeout      Kind = "timed out"
	NotAnImage   Kind = "not an image"
	NotCached    Kind = "not in the cache"
	BadReference Kind = "invalid reference"
	Unreachable  Kind = "unreachable"
	Unavailable  Kind = "registry error"
	// TooManyRedirects: a request redirected more than MaxRedirects times.
	TooManyRedirects Kind = "too many redirects"
	// TooLarge: a manifest, config or other response over its size limit.
	TooLarge Kind = "response too large"
)

// Error is a failure to resolve one reference.
type Error struct {
	Ref  string
	Kind Kind
	Host string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %v", e.Kind, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// ResolveHint says what to do about the failure.
func (e *Error) ResolveHint() string {
	switch e.Kind {
	case NotFound:
		return "check the repository and tag (the node's pull fails the same way)"
	case Unauthorized:
		return fmt.Sprintf("log in with docker login %s (credentials go to ~/.docker/config.json), or pass --registry-config FILE", e.Host)
	case RateLimited:
		return "retry later, log in for a higher pull limit, or run with --offline on a warm cache"
	case Unreachable:
		return fmt.Sprintf("check the network and the registry host %s (--insecure-registry %s for a plain-HTTP registry), or run with --offline on a warm cache", e.Host, e.Host)
	case Timeout:
		return fmt.Sprintf("check that %s is reachable (--insecure-registry %s for a plain-HTTP registry), or run with --offline on a warm cache", e.Host, e.Host)
	case NotAnImage:
		return "the reference names an artifact (a Helm chart, a signature, ...), not a container image: fix the image field"
	case NotCached:
		return "run once without --offline to fill the cache"
	case BadReference:
		return "fix the image reference"
	case TooManyRedirects:
		return fmt.Sprintf("the registry %s redirects in a loop or too far: check its configuration or the proxy in front of it", e.Host)
	case TooLarge:
		return fmt.Sprintf("the registry %s sent more than any image manifest or config holds: check that the reference names an image and the host is a registry", e.Host)
	}
	return "retry later, or check the registry's status"
}

// classify turns a fetch error into an *Error.
func classify(ref, host string, err error) *Error {
	e := &Error{Ref: ref, Host: host, Err: err, Kind: Unavailable}
	if k, ok := boundKind(err); ok {
		e.Kind = k
		return e
	}
	var terr *transport.Error
	var nerr net.Error
	var operr *net.OpError
	var dnserr *net.DNSError
	switch {
	case errors.As(err, &terr):
		e.Kind = statusKind(terr)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		e.Kind = Timeout
	case errors.As(err, &dnserr), errors.As(err, &operr):
		e.Kind = Unreachable
	}
	return e
}

func statusKind(terr *transport.Error) Kind {
	for _, d := range terr.Errors {
		switch d.Code {
		case transport.ManifestUnknownErrorCode, transport.NameUnknownErrorCode, transport.BlobUnknownErrorCode:
			return NotFound
		case transport.UnauthorizedErrorCode, transport.DeniedErrorCode:
			return Unauthorized
		case transport.TooManyRequestsErrorCode:
			return RateLimited
		}
	}
	switch terr.StatusCode {
	case http.StatusNotFound:
		return NotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		return Unauthorized
	case http.StatusTooManyRequests:
		return RateLimited
	case http.StatusGatewayTimeout, http.StatusRequestTimeout:
		return Timeout
	}
	return Unavailable
}
