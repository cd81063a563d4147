package fidelity

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	seedFlag        = flag.Uint64("fidelity.seed", 1, "seed of the generated cases")
	casesFlag       = flag.Int("fidelity.cases", 300, "number of generated cases")
	caseFlag        = flag.Int("fidelity.case", -1, "run only this case of the seed (no fixtures)")
	maxFixturesFlag = flag.Int("fidelity.max-fixtures", 25, "write at most this many failing cases to "+FailuresDir+" per run")
	logFlag         = flag.Bool("fidelity.log", false, "log every pod's real outcome")
)

// TestFidelity runs the fixtures in testdata/failures and the generated
// cases through the real control plane and through winkube, and fails on
// every disagreement. See the package documentation for the method.
func TestFidelity(t *testing.T) {
	cases, err := fidelityCases()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	start := time.Now()
	cl := StartCluster(t)
	t.Logf("control plane up in %s; running %d cases", time.Since(start).Round(time.Millisecond), len(cases))

	var st stats
	failed, written := 0, 0
	for _, cs := range cases {
		nodes, err := cl.Setup(ctx, cs)
		if err != nil {
			t.Fatalf("%s: setting up the real cluster: %v", cs.Name(), err)
		}
		res, simErr := Simulate(ctx, cs, nodes)
		choose := map[string]string{}
		if simErr == nil {
			for _, p := range res.Pods {
				if p.Node != "" {
					choose[p.Pod] = p.Node
				}
			}
		}
		real, err := cl.Run(ctx, cs, choose)
		if err != nil {
			t.Fatalf("%s: running the pods on the real cluster: %v", cs.Name(), err)
		}
		st.add(real)
		if *logFlag {
			for _, r := range real {
				t.Logf("%s %s: %s", cs.Name(), r.Pod, r.summary())
			}
		}
		var diffs []string
		if simErr != nil {
			diffs = []string{fmt.Sprintf("simulate.Run failed: %v", simErr)}
		} else {
			diffs = Compare(real, res)
		}
		if len(diffs) == 0 {
			continue
		}
		failed++
		where := cs.Source
		if where == "" && written < *maxFixturesFlag {
			if where, err = WriteFailure(FailuresDir, cs, real, res, diffs); err != nil {
				t.Fatalf("%s: writing the fixture: %v", cs.Name(), err)
			}
			written++
		}
		if where == "" {
			where = fmt.Sprintf("not written: over -fidelity.max-fixtures=%d", *maxFixturesFlag)
		}
		t.Errorf("%s (%s):\n  %s", cs.Name(), where, strings.Join(diffs, "\n  "))
	}
	t.Logf("%d cases in %s, %d disagreeing; real outcomes: %s",
		len(cases), time.Since(start).Round(time.Millisecond), failed, st)
	if *caseFlag < 0 && *casesFlag >= 100 {
		st.checkMix(t)
	}
}

// fidelityCases are the fixtures followed by the generated cases that are
// not already among them, or the one case asked for with -fidelity.case.
func fidelityCases() ([]*Case, error) {
	if *caseFlag >= 0 {
		return []*Case{NewCase(*seedFlag, *caseFlag)}, nil
	}
	cases, err := LoadFixtures(FailuresDir)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, cs := range cases {
		seen[cs.Name()] = true
	}
	for _, cs := range Generate(*seedFlag, *casesFlag) {
		if !seen[cs.Name()] {
			cases = append(cases, cs)
		}
	}
	return cases, nil
}

// stats counts the real outcomes, to show the generator produces a mix.
type stats struct{ pods, rejected, pending, bound, multiFeasible int }

func (s *stats) add(real []Outcome) {
	for _, r := range real {
		s.pods++
		switch {
		case r.Rejected:
			s.rejected++
		case r.Node == "":
			s.pending++
		default:
			s.bound++
		}
		if len(r.Feasible) > 1 {
			s.multiFeasible++
		}
	}
}

func (s stats) String() string {
	return fmt.Sprintf("%d pods: %d rejected, %d pending, %d bound (%d with several feasible nodes)",
		s.pods, s.rejected, s.pending, s.bound, s.multiFeasible)
}

// checkMix fails if one kind of outcome is rare: the generator would then
// no longer test it.
func (s stats) checkMix(t *testing.T) {
	t.Helper()
	for _, c := range []struct {
		what string
		n    int
	}{{"rejected", s.rejected}, {"pending", s.pending}, {"bound", s.bound}, {"bound with several feasible nodes", s.multiFeasible}} {
		if c.n*100 < s.pods*8 {
			t.Errorf("only %d of %d pods were %s in the real cluster; the generator should produce at least 8%%", c.n, s.pods, c.what)
		}
	}
}
