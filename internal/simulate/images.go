package simulate

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// recordingLookup remembers the references the registry could not
// resolve, so the report says which images were judged by their tag.
type recordingLookup struct {
	inner  rule.ImageLookup
	mu     sync.Mutex
	failed map[string]error
}

func recording(images rule.ImageLookup) *recordingLookup {
	if images == nil {
		return nil
	}
	return &recordingLookup{inner: images, failed: map[string]error{}}
}

func (r *recordingLookup) Lookup(ref string) (*winsupport.ResolvedImage, error) {
	res, err := r.inner.Lookup(ref)
	if err != nil {
		r.mu.Lock()
		r.failed[ref] = err
		r.mu.Unlock()
	}
	return res, err
}

// notes say which images the registry could not resolve and what to do.
func (r *recordingLookup) notes() []string {
	if r == nil {
		return nil
	}
	var out []string
	for ref, err := range r.failed {
		note := fmt.Sprintf("image %q could not be resolved in its registry (%v); it was judged by its tag", ref, err)
		var h interface{ ResolveHint() string }
		if errors.As(err, &h) {
			note += ": " + h.ResolveHint()
		}
		out = append(out, note)
	}
	sort.Strings(out)
	return out
}

// ImageUser forwards to the inner lookup when it can read image users.
func (r *recordingLookup) ImageUser(ref string) winsupport.ImageUser {
	if u, ok := r.inner.(rule.UserLookup); ok {
		return u.ImageUser(ref)
	}
	return winsupport.ImageUser{}
}
