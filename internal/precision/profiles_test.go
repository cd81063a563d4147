package precision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
)

const profilesFile = "testdata/profiles.tsv"

// profile is the cluster a source repository's manifests are linted
// against: a built-in profile name or a cluster file under testdata, with
// the repository's own words that name it. Repositories without a row are
// linted as a new user would, with no profile (cluster.Assumed).
type profile struct {
	Repo, Cluster, Note string
}

func readProfiles(t *testing.T) []profile {
	t.Helper()
	var out []profile
	seen := map[string]bool{}
	for _, r := range readTSV(t, profilesFile, "the per-repository profiles", "repo", "cluster", "note") {
		n, c := r.n, r.c
		switch {
		case seen[c[0]]:
			t.Fatalf("%s:%d: repository %s has a profile already", profilesFile, n, c[0])
		case strings.TrimSpace(c[2]) == "":
			t.Fatalf("%s:%d: a profile needs the repository's words that name it", profilesFile, n)
		}
		seen[c[0]] = true
		out = append(out, profile{c[0], c[1], c[2]})
	}
	return out
}

// load returns the profile's cluster: a built-in profile by name, or a
// cluster file by its path relative to testdata.
func (p profile) load() (*cluster.Cluster, error) {
	if strings.Contains(p.Cluster, "/") {
		return cluster.Load(filepath.Join("testdata", filepath.FromSlash(p.Cluster)))
	}
	return cluster.Named(p.Cluster)
}

// clusters maps each repository directory with a profile to its cluster.
func clusters(t *testing.T) map[string]*cluster.Cluster {
	t.Helper()
	out := map[string]*cluster.Cluster{}
	for _, p := range readProfiles(t) {
		c, err := p.load()
		if err != nil {
			t.Fatalf("%s: repository %s: %v", profilesFile, p.Repo, err)
		}
		out[p.Repo] = c
	}
	return out
}

// TestProfilesNameSuiteRepositories fails on a profile row for a
// repository that is in neither suite: it would silently lint nothing.
func TestProfilesNameSuiteRepositories(t *testing.T) {
	for _, p := range readProfiles(t) {
		_, err1 := os.Stat(filepath.Join(root, p.Repo))
		_, err2 := os.Stat(filepath.Join(recallRoot, p.Repo))
		if err1 != nil && err2 != nil {
			t.Errorf("%s: repository %s is in neither %s nor %s", profilesFile, p.Repo, root, recallRoot)
		}
		if _, err := p.load(); err != nil {
			t.Errorf("%s: repository %s: %v", profilesFile, p.Repo, err)
		}
	}
}
