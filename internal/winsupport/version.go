package winsupport

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes minor release, 1.Minor.
type Version struct{ Minor int }

// Oldest and Newest bound the releases the model covers.
var (
	Oldest = Version{20}
	Newest = Version{36}
)

// ParseVersion reads "1.36", "v1.36" or "v1.36.3".
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || parts[0] != "1" {
		return Version{}, fmt.Errorf("invalid Kubernetes version %q: want 1.MINOR, e.g. 1.36", s)
	}
	m, err := strconv.Atoi(parts[1])
	if err != nil || m < 0 {
		return Version{}, fmt.Errorf("invalid Kubernetes version %q: want 1.MINOR, e.g. 1.36", s)
	}
	v := Version{m}
	if v.Less(Oldest) || Newest.Less(v) {
		return Version{}, fmt.Errorf("Kubernetes version %s is outside the range winkube models (%s to %s)", v, Oldest, Newest)
	}
	return v, nil
}

func (v Version) String() string      { return fmt.Sprintf("1.%d", v.Minor) }
func (v Version) Less(o Version) bool { return v.Minor < o.Minor }

// Range is a span of releases, both ends included; a zero end is open.
type Range struct{ From, Until Version }

// Contains reports whether v is in the range.
func (r Range) Contains(v Version) bool {
	return !v.Less(r.From) && (r.Until.Minor == 0 || !r.Until.Less(v))
}

func (r Range) String() string {
	if r.Until.Minor == 0 {
		return r.From.String() + "+"
	}
	return r.From.String() + "–" + r.Until.String()
}

// Model answers questions for one Kubernetes release.
type Model struct{ V Version }

// ForVersion returns the model of release v.
func ForVersion(v Version) Model { return Model{V: v} }

// Default is the model of the newest covered release.
func Default() Model { return Model{V: Newest} }
