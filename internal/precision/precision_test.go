package precision

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/golden"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

const (
	root     = "testdata/manifests"
	verdicts = "testdata/verdicts.tsv"
	doc      = "../../docs/precision.md"
	// target is issue 7's bar: at least 97% of findings true, with
	// debatable findings counted as not true. docs/precision.md says
	// whether it is met.
	target = 0.97
	// floor is the precision of the reviewed findings as last reviewed,
	// rounded down: the test fails when a change lowers it. It is the
	// target since the review of 2026-11-26 (97.98%): a change that takes
	// the suite under issue 7's bar fails.
	floor = target
)

// verdict is one reviewed finding: rule, file and line identify it;
// present says whether it is still reported (false and debatable
// findings that a rule change removed stay listed as gone, so that they
// cannot come back unnoticed).
type verdict struct {
	Rule, File string
	Line       int
	Verdict    string // true, debatable or false
	Present    bool
	Reason     string
}

func (v verdict) key() string { return fmt.Sprintf("%s|%s|%d", v.Rule, v.File, v.Line) }

// tsvRow is a row of a reviewed table: its line number and its cells.
type tsvRow struct {
	n int
	c []string
}

// readTSV reads a reviewed table, what it holds named in the messages:
// its first line is the header, blank lines are skipped, and every row
// has the columns named.
func readTSV(t *testing.T, path, what string, columns ...string) []tsvRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%s are missing: %v", what, err)
	}
	defer f.Close()
	var rows []tsvRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 || strings.TrimSpace(sc.Text()) == "" {
			continue // header
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != len(columns) {
			t.Fatalf("%s:%d: want %d tab-separated columns (%s), got %d", path, n, len(columns), strings.Join(columns, ", "), len(c))
		}
		rows = append(rows, tsvRow{n, c})
	}
	return rows
}

func readVerdicts(t *testing.T) []verdict {
	t.Helper()
	var out []verdict
	for _, r := range readTSV(t, verdicts, "the reviewed verdicts", "rule", "file", "line", "verdict", "status", "reason") {
		n, c := r.n, r.c
		line, err := strconv.Atoi(c[2])
		if err != nil {
			t.Fatalf("%s:%d: line %q: %v", verdicts, n, c[2], err)
		}
		switch {
		case c[3] != "true" && c[3] != "debatable" && c[3] != "false":
			t.Fatalf("%s:%d: verdict %q: want true, debatable or false", verdicts, n, c[3])
		case c[4] != "present" && c[4] != "gone":
			t.Fatalf("%s:%d: status %q: want present or gone", verdicts, n, c[4])
		case c[4] == "gone" && c[3] == "true":
			t.Fatalf("%s:%d: a true finding cannot be gone", verdicts, n)
		case strings.TrimSpace(c[5]) == "":
			t.Fatalf("%s:%d: a verdict needs its reason", verdicts, n)
		}
		out = append(out, verdict{c[0], c[1], line, c[3], c[4] == "present", c[5]})
	}
	return out
}

// findings lints the suite as a new user would: no cluster profile unless
// the repository's own docs name its cluster (testdata/profiles.tsv), and
// each source repository's manifests as one input, since the input is
// evidence (the Windows taint convention its workloads follow) and a user
// lints their own project, not seventeen vendors' at once.
func findings(t *testing.T) map[string]string {
	t.Helper()
	return findingsIn(t, root, 50)
}

// findingsIn lints every repository directory under dir, keyed by rule,
// file relative to dir and line, against the repository's profile or, with
// none, the assumed cluster; dir must hold at least min manifests.
func findingsIn(t *testing.T, dir string, min int) map[string]string {
	t.Helper()
	profiled := clusters(t)
	repos, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	files := 0
	for _, repo := range repos {
		if !repo.IsDir() {
			continue
		}
		if repo.Name() == "LICENSES" {
			continue
		}
		ins, errs := manifest.Inputs([]string{filepath.Join(dir, repo.Name())}, nil)
		if len(errs) > 0 {
			t.Fatalf("reading %s: %v", repo.Name(), errs[0])
		}
		files += len(ins)
		c := profiled[repo.Name()]
		if c == nil {
			c = cluster.Assumed()
		}
		res, err := engine.Run(context.Background(), ins, engine.Options{Rules: rules.Suite(), Cluster: c, Model: winsupport.Default()})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Findings {
			rel, err := filepath.Rel(dir, f.File)
			if err != nil {
				t.Fatal(err)
			}
			k := fmt.Sprintf("%s|%s|%d", f.Rule, filepath.ToSlash(rel), f.Line)
			out[k] = f.Message
		}
	}
	if files < min {
		t.Fatalf("%s has %d manifests; the suite needs at least %d", dir, files, min)
	}
	return out
}

// TestPrecision fails when a reviewed false or debatable finding comes
// back, a reviewed true one disappears, a finding has no verdict,
// precision falls under the target, a reviewed miss recorded as found is
// no longer reported (or an open one now is), or recall falls under its
// target; it writes docs/precision.md with
// -update and checks it for drift otherwise.
func TestPrecision(t *testing.T) {
	vs := readVerdicts(t)
	got := findings(t)
	reviewed := map[string]bool{}
	for _, v := range vs {
		reviewed[v.key()] = true
		_, now := got[v.key()]
		switch {
		case v.Present && !now && v.Verdict == "true":
			t.Errorf("reviewed true finding disappeared: %s %s:%d (%s)", v.Rule, v.File, v.Line, v.Reason)
		case v.Present && !now:
			t.Errorf("%s finding %s %s:%d is gone: mark it gone in %s", v.Verdict, v.Rule, v.File, v.Line, verdicts)
		case !v.Present && now:
			t.Errorf("reviewed %s finding came back: %s %s:%d: %s (%s)", v.Verdict, v.Rule, v.File, v.Line, got[v.key()], v.Reason)
		}
	}
	var unreviewed []string
	for k, msg := range got {
		if !reviewed[k] {
			unreviewed = append(unreviewed, k+": "+msg)
		}
	}
	sort.Strings(unreviewed)
	for _, u := range unreviewed {
		t.Errorf("finding without a verdict (review it and add it to %s): %s", verdicts, u)
	}

	ms := readMisses(t)
	all := prefixed("manifests", got)
	for k, v := range prefixed("recall", findingsIn(t, recallRoot, 4)) {
		all[k] = v
	}
	checkMisses(t, ms, all)

	text, overall := render(vs, ms, readProfiles(t), networkingRules())
	if overall < floor {
		t.Errorf("precision %.1f%% fell under the %.0f%% it was at the last review", overall*100, floor*100)
	}
	golden.Check(t, doc, text)
}

// networkingRules lists the IDs of the services and networking lint
// rules, whose coverage on real files docs/precision.md states.
func networkingRules() []string {
	var ids []string
	for _, r := range rules.Suite() {
		if r.Category == rule.Networking {
			ids = append(ids, r.ID)
		}
	}
	sort.Strings(ids)
	return ids
}
