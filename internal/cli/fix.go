package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

type fixOptions struct {
	lintOptions
	write  bool
	unsafe bool
	rules  []string
}

func newFixCommand(s Streams) *cobra.Command {
	o := &fixOptions{lintOptions: lintOptions{streams: s, formats: []string{"text"}, failOn: "error", color: "never"}}
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
			if err := o.validate(); err != nil {
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
	f.StringVar(&o.configPath, "config", "", "config file (default ./.winkube.yaml when present)")
	f.StringVar(&o.k8sVersion, "kubernetes-version", "", "Kubernetes version to check against")
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
	res, err := engine.Run(cmd.Context(), ins, engine.Options{Rules: o.enabled, Cluster: o.cluster, Model: o.model, Workers: o.workers})
	if err != nil {
		return err
	}
	policy := fix.Policy{Unsafe: o.unsafe, Rules: map[string]bool{}}
	for _, id := range o.rules {
		policy.Rules[id] = true
	}
	byFile, skipped := fix.Plan(res.Findings, policy)
	files, changed, failed := o.applyAll(ins, byFile, stdin)
	if !o.quiet {
		fmt.Fprintf(o.streams.Err, "%d fixes applied to %d of %d files", changed, files, len(ins))
		if len(skipped) > 0 {
			fmt.Fprintf(o.streams.Err, "; %d unsafe fixes not applied (use --unsafe or --rule ID): %s", len(skipped), ruleList(skipped))
		}
		fmt.Fprintln(o.streams.Err)
	}
	if failed > 0 {
		return fmt.Errorf("%d fixes could not be applied (see above)", failed)
	}
	return nil
}

// applyAll fixes each input in input order; it returns how many files
// changed, how many edits changed something and how many failed.
func (o *fixOptions) applyAll(ins []manifest.Input, byFile map[string][]fix.Edit, stdin []byte) (files, changed, failed int) {
	for _, in := range ins {
		var before []byte
		if in.Name == "<stdin>" {
			before = stdin
		} else {
			b, err := os.ReadFile(in.Name)
			if err != nil {
				fmt.Fprintf(o.streams.Err, "error: %s: %v\n", in.Name, err)
				failed++
				continue
			}
			before = b
		}
		after, applied := fix.Apply(before, byFile[in.Name])
		var notes []string
		for _, a := range applied {
			switch {
			case a.Err != nil:
				failed++
				fmt.Fprintf(o.streams.Err, "error: %s: %s\n", in.Name, fix.Describe(a))
			case a.Changed:
				changed++
				notes = append(notes, fix.Describe(a))
			}
		}
		if !bytes.Equal(before, after) {
			files++
		}
		o.emit(in.Name, before, after, notes)
	}
	return files, changed, failed
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
		d, _ := fix.Diff(name, before, after)
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
