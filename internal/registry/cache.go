package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// cache is the on-disk cache: manifests and configs by digest (they never
// change), and tags as the digest they pointed at and when.
//
//	DIR/manifests/sha256-<hex>   raw manifest or index; first line its media type
//	DIR/configs/sha256-<hex>     raw config blob
//	DIR/tags/<sha256 of repository:tag>.json
//
// A cache with no dir is none: every read misses, every write is dropped.
type cache struct{ dir string }

type tagEntry struct {
	Ref     string    `json:"ref"`
	Digest  string    `json:"digest"`
	Fetched time.Time `json:"fetched"`
}

// defaultCacheDir is winkube/images under the user cache dir.
func defaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %w (set --registry-cache DIR)", err)
	}
	return filepath.Join(d, "winkube", "images"), nil
}

func digestFile(digest string) string { return strings.ReplaceAll(digest, ":", "-") }

func (c cache) tagPath(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(c.dir, "tags", hex.EncodeToString(h[:])+".json")
}

// tag returns the cached digest of repository:tag and when it was read.
func (c cache) tag(key string) (tagEntry, bool) {
	if c.dir == "" {
		return tagEntry{}, false
	}
	b, err := os.ReadFile(c.tagPath(key))
	if err != nil {
		return tagEntry{}, false
	}
	var e tagEntry
	if json.Unmarshal(b, &e) != nil || e.Ref != key || e.Digest == "" {
		return tagEntry{}, false
	}
	return e, true
}

func (c cache) putTag(key, digest string, now time.Time) error {
	b, _ := json.Marshal(tagEntry{Ref: key, Digest: digest, Fetched: now})
	return c.write(c.tagPath(key), b)
}

func (c cache) manifest(digest string) (mediaType string, raw []byte, ok bool) {
	if c.dir == "" {
		return "", nil, false
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "manifests", digestFile(digest)))
	if err != nil {
		return "", nil, false
	}
	mt, rest, found := strings.Cut(string(b), "\n")
	return mt, []byte(rest), found && verified(digest, []byte(rest))
}

func (c cache) putManifest(digest, mediaType string, raw []byte) error {
	return c.write(filepath.Join(c.dir, "manifests", digestFile(digest)), append([]byte(mediaType+"\n"), raw...))
}

func (c cache) config(digest string) ([]byte, bool) {
	if c.dir == "" {
		return nil, false
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "configs", digestFile(digest)))
	return b, err == nil && verified(digest, b)
}

// verified reports whether b has the digest: a file cut short by a
// crash or written by two runs at once is a cache miss, not a wrong
// answer.
func verified(digest string, b []byte) bool {
	want, ok := strings.CutPrefix(digest, "sha256:")
	if !ok {
		return true // other algorithms are trusted as stored
	}
	got := sha256.Sum256(b)
	return hex.EncodeToString(got[:]) == want
}

func (c cache) putConfig(digest string, raw []byte) error {
	return c.write(filepath.Join(c.dir, "configs", digestFile(digest)), raw)
}

// write writes a cache file in place: manifests and configs are checked
// against their digest when read, tags must decode and name their
// reference, so a torn write is a miss. (A temporary file and a rename
// per write cost a third of a cold resolution.)
func (c cache) write(path string, b []byte) error {
	if c.dir == "" {
		return nil
	}
	err := os.WriteFile(path, b, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
	}
	if err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	return nil
}
