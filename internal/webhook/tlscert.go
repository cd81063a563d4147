package webhook

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/winkube/winkube/internal/manifest"
)

// certSource serves the certificate of two files and reloads it when
// their content changes. Each TLS handshake reads the cached certificate;
// connections already open keep the one they started with.
type certSource struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]

	mu      sync.Mutex
	loaded  [32]byte // checksum of the files behind cur
	lastBad [32]byte // checksum of the last pair that failed, logged once
}

// maxPEM bounds a certificate chain or key file.
const maxPEM = 1 << 20

// reload reads the files and swaps in their certificate when their content
// changed. changed is false when there was nothing new; an error leaves the
// current certificate in place.
func (c *certSource) reload() (changed bool, err error) {
	// A Secret's files are links into ..data, which opening follows; a
	// FIFO or device put in their place is refused unread.
	certPEM, err := manifest.ReadFile(c.certFile, maxPEM)
	if err != nil {
		return false, fmt.Errorf("reading TLS certificate: %w", err)
	}
	keyPEM, err := manifest.ReadFile(c.keyFile, maxPEM)
	if err != nil {
		return false, fmt.Errorf("reading TLS key: %w", err)
	}
	sum := sha256.Sum256(bytes.Join([][]byte{certPEM, keyPEM}, []byte{0}))
	c.mu.Lock()
	defer c.mu.Unlock()
	if (sum == c.loaded && c.cur.Load() != nil) || sum == c.lastBad {
		return false, nil
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// A rotation that writes the two files one after the other is
		// caught half way; the next poll sees the finished pair.
		c.lastBad = sum
		return false, fmt.Errorf("loading TLS certificate %s and key %s: %w", c.certFile, c.keyFile, err)
	}
	c.cur.Store(&cert)
	c.loaded = sum
	return true, nil
}

// get is tls.Config.GetCertificate.
func (c *certSource) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if cert := c.cur.Load(); cert != nil {
		return cert, nil
	}
	return nil, fmt.Errorf("no TLS certificate loaded")
}

// describe names the current certificate for logs.
func (c *certSource) describe() []any {
	cert := c.cur.Load()
	if cert == nil || cert.Leaf == nil {
		return nil
	}
	return []any{"serial", cert.Leaf.SerialNumber.String(), "notAfter", cert.Leaf.NotAfter, "dnsNames", cert.Leaf.DNSNames}
}
