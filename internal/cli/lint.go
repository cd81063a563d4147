package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rule"
)

type lintOptions struct {
	scope
	formats   []string
	outputs   []string
	failOn    string
	color     string
	quiet     bool
	workers   int
	streams   Streams
	failLevel rule.Severity
	failNever bool
}

func newLintCommand(s Streams) *cobra.Command {
	o := &lintOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "lint [flags] PATH... | -",
		Short: "Check manifests for what breaks on Windows nodes and in hybrid clusters",
		Long: `Check Kubernetes manifests (files, folders, or - for stdin) against the Windows
support model and the cluster profile. Every finding names its file, line and
column and a stable rule ID.

Exit status: 0 when nothing is at or above --fail-on, 1 when something is,
2 for a usage error or a tool failure. The output format never changes it.`,
		Example: `  winkube lint examples/
  helm template ./chart | winkube lint -
  kustomize build overlays/prod | winkube lint - -o sarif --output results.sarif
  winkube lint -o text -o json --output - --output report.json manifests/`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("lint needs at least one path, or - to read stdin")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(cmd, args)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.formats, "format", "o", []string{"text"}, "output format: text, json, sarif or github (repeatable)")
	f.StringArrayVar(&o.outputs, "output", nil, "file for the matching --format, - for stdout (repeatable; default stdout)")
	f.StringVar(&o.failOn, "fail-on", "error", "exit 1 when a finding is at or above this severity: error, warning, info or none")
	o.addFlags(f)
	f.StringVar(&o.color, "color", "auto", "colour output: auto, always or never (NO_COLOR is honoured)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print no status on stderr")
	f.IntVar(&o.workers, "workers", 0, "documents checked in parallel (default: one per CPU)")
	return cmd
}

func (o *lintOptions) validate() error {
	for _, f := range o.formats {
		if !contains(report.Formats, f) {
			return usagef("--format %q: want one of %s", f, strings.Join(report.Formats, ", "))
		}
	}
	if len(o.outputs) > len(o.formats) {
		return usagef("%d --output values for %d --format values; give one --format per --output", len(o.outputs), len(o.formats))
	}
	if o.failOn == "none" {
		o.failNever = true
	} else {
		lvl, err := rule.ParseSeverity(o.failOn)
		if err != nil {
			return usagef("--fail-on: %v", err)
		}
		o.failLevel = lvl
	}
	if err := checkColor(o.color); err != nil {
		return err
	}
	return o.resolve()
}

func (o *lintOptions) run(cmd *cobra.Command, args []string) error {
	o.announce(o.streams.Err, o.quiet)
	ins, inErrs := manifest.Inputs(args, o.streams.In)
	res, err := engine.Run(cmd.Context(), ins, engine.Options{Rules: o.enabled, Cluster: o.cluster, Model: o.model, Workers: o.workers})
	if err != nil {
		return err
	}
	// Paths that could not be read are load errors like any other.
	var pre []rule.Finding
	for _, e := range inErrs {
		pre = append(pre, rule.Finding{Rule: engine.LoadErrorID, Severity: rule.Error, Message: e.Msg, Hint: e.Hint, File: e.File, Line: e.Line})
	}
	rep := &report.Report{Findings: append(pre, res.Findings...), Rules: o.enabled, Files: res.Files, Objects: res.Objects, Tool: Version}
	for i, format := range o.formats {
		dest := "-"
		if i < len(o.outputs) {
			dest = o.outputs[i]
		}
		if err := o.write(format, dest, rep); err != nil {
			return err
		}
	}
	if o.failNever {
		return nil
	}
	for _, f := range rep.Findings {
		if !f.Suppressed && f.Severity >= o.failLevel {
			return exitError{ExitFindings}
		}
	}
	return nil
}

func (o *lintOptions) write(format, dest string, rep *report.Report) error {
	var w io.Writer = o.streams.Out
	color := o.color == "always" || (o.color == "auto" && o.streams.OutIsTerminal && os.Getenv("NO_COLOR") == "")
	if dest != "-" {
		f, err := os.Create(dest)
		if err != nil {
			return fmt.Errorf("writing %s output: %w", format, err)
		}
		defer f.Close()
		w, color = f, o.color == "always"
	}
	if err := report.Write(w, format, rep, report.Options{Color: color}); err != nil {
		return fmt.Errorf("writing %s output: %w", format, err)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
