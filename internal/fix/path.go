package fix

import "github.com/winkube/winkube/internal/manifest"

// segment is one step of an API-style field path.
type segment = manifest.Segment

func parsePath(p string) []segment { return manifest.SplitPath(p) }
