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
	b, err := os.ReadFile(filepath.Join(c.dir, "manifests", digestFile(digest)))
	if err != nil {
		return "", nil, false
	}
	mt, rest, found := strings.Cut(string(b), "\n")
	return mt, []byte(rest), found
}

func (c cache) putManifest(digest, mediaType string, raw []byte) error {
	return c.write(filepath.Join(c.dir, "manifests", digestFile(digest)), append([]byte(mediaType+"\n"), raw...))
}

func (c cache) config(digest string) ([]byte, bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, "configs", digestFile(digest)))
	return b, err == nil
}

func (c cache) putConfig(digest string, raw []byte) error {
	return c.write(filepath.Join(c.dir, "configs", digestFile(digest)), raw)
}

// write replaces a file atomically, so concurrent runs never read half
// of one.
func (c cache) write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("image cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		os.Remove(tmp.Name())
		return fmt.Errorf("image cache: %w", err)
	}
	return nil
}
