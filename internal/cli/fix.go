package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/atomicwrite"
	"github.com/winkube/winkube/internal/chart"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/fix"
	"github.com/winkube/winkube/internal/inputs"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report/fixreport"
	"github.com/winkube/winkube/internal/rule"
)

type fixOptions struct {
	scope
	inputFlags
	output
	failGate
	streams Streams
	write   bool
	unsafe  bool
	workers int
	rules   []string
	// stdout says whether stdout gets the format: always, except with
	// --write and no -o.
	stdout bool
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
rejected) need --unsafe, or --rule ID for one rule.

-o diff (the default) prints the diffs, or the fixed manifests for -; -o json
a FixReport. With --write, stdout stays empty unless -o is given.
--output-file FORMAT=PATH writes a format to a file as well.

YAML that is not a Kubernetes object (a Helm values.yaml) is left as it is and
reported as a load-error warning, as lint reports it.

Exit status: 0 when every fix was applied, 1 when an input warning is at or
above --fail-on, 2 when an edit could not be made or a file could not be read
or written (each is named on stderr).`,
		Example: `  winkube fix examples/                 # show the diff
  winkube fix --write manifests/         # edit in place
  helm template ./chart | winkube fix - > fixed.yaml
  winkube fix --rule windows-forbidden-field --write deploy/
  winkube fix --write --output-file json=fixes.json manifests/`,
		Args: pathArgs("fix"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validateReportFlags(&o.output, &o.failGate); err != nil {
				return err
			}
			o.stdout = !o.write || cmd.Flags().Changed("output")
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
	o.output.addFlags(f, "result", "diff", "json")
	o.failGate.addFlag(f)
	o.scope.addFlags(f)
	o.addInputFlags(f)
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
	ctx := cmd.Context()
	var stdin []byte
	if slices.Contains(args, "-") {
		if o.write {
			return usagef("--write cannot write back to stdin; redirect stdout instead")
		}
		b, err := manifest.ReadAllLimited(ctx, "<stdin>", o.streams.In)
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		stdin = b
	}
	ins, inErrs := o.resolveInputs(&o.scope, args, bytes.NewReader(stdin))
	// A chart's notes are lint's findings (windows-template-not-rendered),
	// nothing fix could edit: only the problems stop it.
	inErrs = slices.DeleteFunc(inErrs, func(e *manifest.Error) bool { return errors.Is(e, chart.ErrWindowsNotRendered) })
	if len(inErrs) == 0 && inputs.Rendered(ins) {
		return o.refuseRendered(ctx, ins)
	}
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
	files, err := readInputs(ctx, ins, stdin)
	if err != nil {
		return err
	}
	res, err := fix.Converge(ctx, files, engine.Options{Rules: o.enabled, Cluster: o.cluster, Model: o.model, Workers: o.workers}, policy)
	if err != nil {
		return err
	}
	return o.report(files, res)
}

// report writes the fixed files (--write), renders the result and
// summarises it. Every failure (an edit that could not be made, a file
// that could not be written) is named on stderr and makes the exit code 2.
func (o *fixOptions) report(files []fix.File, res *fix.Result) error {
	changedFiles, changed, failures := 0, 0, 0
	var writeErrs []error
	var input []rule.Finding
	for i, fr := range res.Files {
		for _, e := range fr.NotObjects {
			if f, report, _ := inputFinding(o.cfg.Settings(), e); report {
				input = append(input, f)
			}
		}
		changed += len(fr.Notes)
		for _, f := range fr.Failures {
			fmt.Fprintf(o.streams.Err, "error: %s: %s\n", fr.Name, f)
		}
		failures += len(fr.Failures)
		if !fr.Changed(files[i].Data) {
			continue
		}
		if o.write && fr.Name != fixreport.Stdin {
			// Replaced atomically: a failure leaves the file as it was.
			if err := atomicwrite.File(fr.Name, fr.After, 0o644); err != nil {
				fmt.Fprintf(o.streams.Err, "error: %v\n", err)
				writeErrs = append(writeErrs, err)
				continue
			}
		}
		changedFiles++
	}
	if err := o.renderResult(files, res); err != nil {
		return err
	}
	warnInput(o.streams.Err, o.quiet, input)
	// Without --write nothing is written: a diff, or the fixed stream of a
	// filter (-), shows what the fixes would do to the files.
	filter := len(files) == 1 && files[0].Name == fixreport.Stdin
	verb := "applied to"
	if !o.write && !filter {
		verb = "would be applied to"
	}
	summary := fmt.Sprintf("%s %s %d of %d files", count(changed, "fix", "fixes"), verb, changedFiles, len(files))
	if !o.write && !filter && changed > 0 {
		summary += "; nothing was written (--write writes them)"
	}
	if len(res.Skipped) > 0 {
		summary += fmt.Sprintf("; %s not applied (use --unsafe or --rule ID): %s", count(len(res.Skipped), "unsafe fix", "unsafe fixes"), ruleList(res.Skipped))
	}
	o.status(o.streams, "%s", summary)
	switch {
	case len(writeErrs) > 0:
		return fmt.Errorf("%s could not be written; they are unchanged (see above)", count(len(writeErrs), "file", "files"))
	case failures > 0:
		return fmt.Errorf("%s: not everything was fixed (see above)", count(failures, "problem", "problems"))
	}
	return o.failGate.exit(input)
}

// renderResult writes the chosen format to stdout (unless --write without
// -o) and to every --output-file.
func (o *fixOptions) renderResult(files []fix.File, res *fix.Result) error {
	streams := o.streams
	if !o.stdout {
		streams.Out = io.Discard
	}
	return o.render(streams, func(w io.Writer, format string, colour bool) error {
		if format == "json" {
			return fixreport.WriteJSON(w, files, res)
		}
		return fixreport.WriteDiff(w, files, res, colour)
	})
}

// readInputs reads every input once, bounded by the input size limit.
func readInputs(ctx context.Context, ins []manifest.Input, stdin []byte) ([]fix.File, error) {
	out := make([]fix.File, 0, len(ins))
	for _, in := range ins {
		if in.Name == fixreport.Stdin {
			out = append(out, fix.File{Name: in.Name, Data: stdin})
			continue
		}
		b, err := readInput(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, fix.File{Name: in.Name, Data: b})
	}
	return out, nil
}

func readInput(ctx context.Context, in manifest.Input) ([]byte, error) {
	// A located manifest.Error says all; anything else names the input.
	failed := func(err error) error {
		var me *manifest.Error
		if errors.As(err, &me) {
			return me
		}
		return fmt.Errorf("reading %s: %w", in.Name, err)
	}
	r, err := in.Open()
	if err != nil {
		return nil, failed(err)
	}
	defer r.Close()
	b, err := manifest.ReadAllLimited(ctx, in.Name, r)
	if err != nil {
		return nil, failed(err)
	}
	return b, nil
}

func ruleList(fs []rule.Finding) string {
	seen := map[string]bool{}
	for _, f := range fs {
		seen[f.Rule] = true
	}
	ids := slices.Sorted(maps.Keys(seen))
	return strings.Join(ids, ", ")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
