package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

type fixOptions struct {
	scope
	streams Streams
	write   bool
	unsafe  bool
	quiet   bool
	workers int
	rules   []string
}

func newFixCommand(s Streams) *cobra.Command {
	o := &fixOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "fix [flags] PATH... | -",
		Short: "Repair manifests with the rules' fixes",
		Long: `Apply the fixes of winkube's rules to manifests. By default fix prints a unified
diff, each file's changes explained above it; --write edits the files in place;
- reads stdin and writes the fixed manifests to stdout.

Edits keep comments, key order, indentation, quoting, flow style and document
separators; documents without a fix stay byte-identical, and fixing twice
changes nothing the second time.

Safe fixes are applied by default: spec.os.name, the kubernetes.io/os selector,
the Windows toleration from the cluster profile, the windows-build pin inferred
from the image tag, emptyDir medium Memory removed on Windows. Fixes that change
security posture (removing Linux-only security fields that make a Windows pod
rejected) need --unsafe, or --rule ID for one rule.`,
		Example: `  winkube fix examples/                 # show the diff
  winkube fix --write manifests/         # edit in place
  helm template ./chart | winkube fix - > fixed.yaml
  winkube fix --rule windows-forbidden-field --write deploy/`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("fix needs at least one path, or - to read stdin")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.resolve(); err != nil {
				return err
			}
			for _, id := range o.rules {
				if !o.ruleEnabled(id) {
					return usagef("--rule %q: not a rule of this run (winkube rules lists them)", id)
				}
			}
			return o.run(cmd, args)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.write, "write", "w", false, "write the fixed files in place instead of printing a diff")
	f.BoolVar(&o.unsafe, "unsafe", false, "also apply fixes that change security posture")
	f.StringArrayVar(&o.rules, "rule", nil, "apply this rule's unsafe fixes too (repeatable)")
	o.addFlags(f)
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print no summary on stderr")
	return cmd
}

func (o *fixOptions) ruleEnabled(id string) bool {
	for _, r := range o.enabled {
		if r.ID == id {
			return true
		}
	}
	return false
}

func (o *fixOptions) run(cmd *cobra.Command, args []string) error {
	o.announce(o.streams.Err, o.quiet)
	var stdin []byte
	if contains(args, "-") {
		if o.write {
			return usagef("--write cannot write back to stdin; redirect stdout instead")
		}
		b, err := io.ReadAll(o.streams.In)
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		stdin = b
	}
	ins, inErrs := manifest.Inputs(args, bytes.NewReader(stdin))
	if len(inErrs) > 0 {
		errs := make([]error, len(inErrs))
		for i, e := range inErrs {
			errs[i] = e
		}
		return usageError{errors.Join(errs...)}
	}
	policy := fix.Policy{Unsafe: o.unsafe, Rules: map[string]bool{}}
	for _, id := range o.rules {
		policy.Rules[id] = true
	}
	before, err := o.readAll(ins, stdin)
	if err != nil {
		return err
	}
	after, notes, failures, skipped, err := o.converge(cmd.Context(), ins, before, policy)
	if err != nil {
		return err
	}
	changedFiles, changed := 0, 0
	for _, in := range ins {
		if !bytes.Equal(before[in.Name], after[in.Name]) {
			changedFiles++
		}
		changed += len(notes[in.Name])
		for _, f := range failures[in.Name] {
			fmt.Fprintf(o.streams.Err, "error: %s: %s\n", in.Name, f)
		}
		o.emit(in.Name, before[in.Name], after[in.Name], notes[in.Name])
	}
	if !o.quiet {
		fmt.Fprintf(o.streams.Err, "%s applied to %d of %d files", count(changed, "fix", "fixes"), changedFiles, len(ins))
		if len(skipped) > 0 {
			fmt.Fprintf(o.streams.Err, "; %s not applied (use --unsafe or --rule ID): %s", count(len(skipped), "unsafe fix", "unsafe fixes"), ruleList(skipped))
		}
		fmt.Fprintln(o.streams.Err)
	}
	if n := countAll(failures); n > 0 {
		return fmt.Errorf("%d fixes could not be applied (see above)", n)
	}
	return nil
}

// maxPasses bounds how often fix re-checks its own output. A fix can
// enable another (pinning a workload to Windows makes the Windows
// toleration due), so fix runs until nothing changes.
const maxPasses = 5

// converge lints and fixes the texts until a pass changes nothing.
func (o *fixOptions) converge(ctx context.Context, ins []manifest.Input, before map[string][]byte, policy fix.Policy) (after map[string][]byte, notes, failures map[string][]string, skipped []rule.Finding, err error) {
	after = make(map[string][]byte, len(before))
	for k, v := range before {
		after[k] = v
	}
	notes, failures = map[string][]string{}, map[string][]string{}
	seenFail := map[string]bool{}
	for pass := 0; pass < maxPasses; pass++ {
		cur := make([]manifest.Input, len(ins))
		for i, in := range ins {
			cur[i] = manifest.BytesInput(in.Name, after[in.Name])
		}
		res, err := engine.Run(ctx, cur, engine.Options{Rules: o.enabled, Cluster: o.cluster, Model: o.model, Workers: o.workers})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		byFile, sk := fix.Plan(res.Findings, policy)
		skipped = sk
		progress := false
		for _, in := range ins {
			next, applied := fix.Apply(after[in.Name], byFile[in.Name])
			for _, a := range applied {
				d := fix.Describe(a)
				switch {
				case a.Err != nil && !seenFail[in.Name+d]:
					seenFail[in.Name+d] = true
					failures[in.Name] = append(failures[in.Name], d)
				case a.Changed:
					notes[in.Name] = append(notes[in.Name], d)
				}
			}
			if !bytes.Equal(next, after[in.Name]) {
				after[in.Name], progress = next, true
			}
		}
		if !progress {
			break
		}
	}
	return after, notes, failures, skipped, nil
}

// readAll reads every input once.
func (o *fixOptions) readAll(ins []manifest.Input, stdin []byte) (map[string][]byte, error) {
	out := make(map[string][]byte, len(ins))
	for _, in := range ins {
		if in.Name == "<stdin>" {
			out[in.Name] = stdin
			continue
		}
		b, err := os.ReadFile(in.Name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", in.Name, err)
		}
		out[in.Name] = b
	}
	return out, nil
}

func countAll(m map[string][]string) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}

func (o *fixOptions) emit(name string, before, after []byte, notes []string) {
	switch {
	case name == "<stdin>":
		o.streams.Out.Write(after)
	case o.write:
		if bytes.Equal(before, after) {
			return
		}
		mode := os.FileMode(0o644)
		if st, err := os.Stat(name); err == nil {
			mode = st.Mode().Perm()
		}
		if err := os.WriteFile(name, after, mode); err != nil {
			fmt.Fprintf(o.streams.Err, "error: writing %s: %v\n", name, err)
		}
	case !bytes.Equal(before, after):
		for _, n := range notes {
			fmt.Fprintf(o.streams.Out, "# %s: %s\n", name, n)
		}
		d, _ := unifiedDiff(name, before, after)
		io.WriteString(o.streams.Out, d)
	}
}

func ruleList(fs []rule.Finding) string {
	seen := map[string]bool{}
	for _, f := range fs {
		seen[f.Rule] = true
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// unifiedDiff is a unified diff of one file's change.
func unifiedDiff(name string, before, after []byte) (string, error) {
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(before)),
		B:        difflib.SplitLines(string(after)),
		FromFile: "a/" + name,
		ToFile:   "b/" + name,
		Context:  3,
	})
}
