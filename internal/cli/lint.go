package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/version"
)

type lintOptions struct {
	scope
	output
	registryFlags
	failGate
	inputFlags
	workers int
	streams Streams
}

func newLintCommand(s Streams) *cobra.Command {
	o := &lintOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "lint [flags] PATH... | -",
		Short: "Check manifests for what breaks on Windows nodes and in hybrid clusters",
		Long: `Check Kubernetes manifests (files, folders, or - for stdin) against the Windows
support model and the cluster profile. A Helm chart (a folder with Chart.yaml,
or a .tgz) is rendered as helm template renders it (--values, --set,
--release-name, --namespace, --kube-version; dependencies from its charts/
folder, nothing fetched) and a folder with a kustomization file is built as
kustomize build builds it; their findings point at the template or base line,
with the rendered position beside it. Node pools kept as code (Terraform, an
ARM template or Bicep file, an eksctl ClusterConfig, a script of az, eksctl,
aws or gcloud commands) are checked for what strands pods on a hybrid cluster;
pass the same file as --cluster to check manifests against its pools. Every finding names its file, line and
column and a stable rule ID. Input problems (invalid YAML, unrendered
templates, a path that cannot be read) are load-error findings, so the rest
of the input is still checked.

-o sets the format on stdout; --output-file FORMAT=PATH writes more formats to
files in the same run (a SARIF file for code scanning, text on stdout).

Exit status: 0 when nothing is at or above --fail-on, 1 when something is,
2 for a usage error or a tool failure: an input that cannot be read (whatever
load-error's configured severity) or an output file that cannot be written.
The output format never changes it.`,
		Example: `  winkube lint examples/
  winkube lint charts/winkube-webhook --set replicaCount=1
  winkube lint overlays/prod
  winkube lint --cluster infra/aks.tf manifests/ infra/aks.tf
  helm template ./chart | winkube lint -
  kustomize build overlays/prod | winkube lint - --output-file sarif=results.sarif
  winkube lint -o github --output-file json=report.json manifests/`,
		Args: pathArgs("lint"),
		RunE: validateThenRun(o),
	}
	f := cmd.Flags()
	o.output.addFlags(f, "report", report.Formats...)
	o.failGate.addFlag(f)
	o.scope.addFlags(f)
	o.addInputFlags(f)
	f.IntVar(&o.workers, "workers", 0, "documents checked in parallel (default: one per CPU)")
	o.addRegistryFlags(f, true)
	return cmd
}

func (o *lintOptions) validate() error {
	if err := validateReportFlags(&o.output, &o.failGate); err != nil {
		return err
	}
	return o.resolve()
}

func (o *lintOptions) run(cmd *cobra.Command, args []string) error {
	o.announce(o.streams.Err, o.quiet)
	images, err := o.lookup(o.streams, o.quiet)
	if err != nil {
		return err
	}
	ins, inErrs := o.resolveInputs(&o.scope, args, o.streams.In)
	res, err := engine.RunResolved(cmd.Context(), ins, inErrs, engine.Options{Rules: o.enabled, Cluster: o.cluster, Model: o.model, Workers: o.workers, Images: images})
	o.doneImages()
	if err != nil {
		return err
	}
	o.warnCluster(&o.output, o.streams)
	rep := &report.Report{Findings: res.Findings, Rules: o.enabled, Files: res.Files, Objects: res.Objects, Tool: version.Get().Version}
	err = o.render(o.streams, func(w io.Writer, format string, colour bool) error {
		return report.Write(w, format, rep, report.Options{Color: colour})
	})
	if err != nil {
		return err
	}
	if err := unread(o.streams, res.Unread); err != nil {
		return err
	}
	return o.failGate.exit(rep.Findings)
}
