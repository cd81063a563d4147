package fetch

import (
	"fmt"
	"hash/maphash"
	"io"
	"net/http"
)

// Bounds on one list, whatever the server says: a server that repeats a
// continue token, or hands out new ones forever, ends here with an error
// naming the kind, instead of a read that never finishes or fills memory.
const (
	// MaxObjects is the most objects read of one kind: 150,000 pods is
	// the largest cluster Kubernetes supports
	// (kubernetes.io/docs/setup/best-practices/cluster-large/), so twice
	// that of any kind is a server that does not stop.
	MaxObjects = 300_000
	// MaxPages is the most pages read of one kind; with DefaultPageSize a
	// server sending full pages reaches MaxObjects first.
	MaxPages = 10_000
)

// maxPages is MaxPages but for tests.
var maxPages = MaxPages

// pager checks the pages of one list.
type pager struct {
	resource string
	seed     maphash.Seed
	seen     map[uint64]bool // hashes: a token can be long
	pages    int
}

// next checks the continue token of the page just read, with objects
// read so far.
func (p *pager) next(token string, objects int) error {
	if p.seen == nil {
		p.seen, p.seed = map[uint64]bool{}, maphash.MakeSeed()
	}
	h := maphash.String(p.seed, token)
	p.pages++
	switch {
	case p.seen[h]:
		return fmt.Errorf("listing %s: the API server sent the same continue token again after %d pages (a paging loop); stopped reading", p.resource, p.pages)
	case p.pages >= maxPages:
		return fmt.Errorf("listing %s: more than %d pages; stopped reading (the API server keeps sending continue tokens)", p.resource, maxPages)
	case objects > MaxObjects:
		return fmt.Errorf("listing %s: more than %d objects; stopped reading (more than any supported cluster holds)", p.resource, MaxObjects)
	}
	p.seen[h] = true
	return nil
}

// MaxResponseBytes bounds one response body: a page of DefaultPageSize
// pods is tens of MiB in protobuf; a server that sends without end stops
// here (client-go reads a body whole before decoding it).
const MaxResponseBytes = 128 << 20

// boundedBody cuts every response body at MaxResponseBytes.
type boundedBody struct{ next http.RoundTripper }

func (b boundedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &capped{ReadCloser: resp.Body, left: MaxResponseBytes}
	return resp, nil
}

type capped struct {
	io.ReadCloser
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("the API server's response is larger than %d MiB; stopped reading", MaxResponseBytes>>20)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}
