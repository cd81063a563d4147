package cli

import (
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/registry"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/report/imagereport"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

type imagesOptions struct {
	scope
	inputFlags
	registryFlags
	output
	failGate
	streams Streams
	// input are the documents that are not Kubernetes objects.
	input []rule.Finding
}

func newImagesCommand(s Streams) *cobra.Command {
	o := &imagesOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "images [flags] [PATH... | -]",
		Short: "Show which platform of each image every node pool pulls, or the runtime's error",
		Long: `Resolve every container image of the manifests (and each pool's sandbox image)
in its registry and show, for every pool of the cluster, which platform entry
the node pulls under process and under Hyper-V isolation, as containerd picks
it: same OS and architecture, a compatible os.version (the exact build before
Windows Server 2022; from 2022 on, the previous LTSC up to the host's build;
with Hyper-V, any build up to the host's), the greatest os.version, the win32k
feature ignored. Where none fits, the runtime's own error is shown.

YAML that is not a Kubernetes object (a Helm values.yaml) is reported as a
load-error warning, as lint reports it.

Exit status: 0 when every image resolved and every pool runs its sandbox
image, 1 otherwise or when an input warning is at or above --fail-on, 2 for a
usage error or a tool failure.`,
		Example: `  winkube images --cluster cluster.yaml manifests/
  helm template ./chart | winkube images -o json - | jq '.images[] | select(.error)'
  winkube images --insecure-registry localhost:5000 --offline app.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := validateReportFlags(&o.output, &o.failGate); err != nil {
				return err
			}
			if err := o.resolve(); err != nil {
				return err
			}
			return o.run(cmd, args)
		},
	}
	f := cmd.Flags()
	o.scope.addFlags(f)
	o.addInputFlags(f)
	o.addRegistryFlags(f, false)
	o.output.addFlags(f, "table", "text", "json")
	o.failGate.addFlag(f)
	return cmd
}

func (o *imagesOptions) run(cmd *cobra.Command, args []string) error {
	o.announce(o.streams.Err, o.quiet)
	var refs []string
	if len(args) > 0 {
		var err error
		if refs, err = o.imageRefs(args); err != nil {
			return err
		}
		warnInput(o.streams.Err, o.quiet, o.input)
	}
	res, err := o.resolver(o.streams, o.quiet)
	if err != nil {
		return err
	}
	sandboxes := map[string]bool{}
	for _, p := range o.cluster.Pools {
		sandboxes[p.Sandbox()] = true
		refs = append(refs, p.Sandbox())
	}
	found, failed := res.ResolveAll(cmd.Context(), refs)
	rows := o.rows(found, failed, sandboxes)
	err = o.render(o.streams, func(w io.Writer, format string, _ bool) error {
		if format == "json" {
			return imagereport.JSON(w, rows)
		}
		return imagereport.Text(w, rows)
	})
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.Error != "" || (r.Sandbox && !sandboxRuns(r)) {
			return exitError{ExitFindings}
		}
	}
	return o.failGate.exit(o.input)
}

// imageRefs reads every container image of the manifests.
func (o *imagesOptions) imageRefs(args []string) ([]string, error) {
	ins, inErrs := o.resolveInputs(&o.scope, args, o.streams.In)
	objs, errs := manifest.ReadAll(ins)
	failed := false
	for _, e := range append(inErrs, errs...) {
		if f, keep, ok := inputFinding(o.cfg.Settings(), e); ok {
			if keep {
				o.input = append(o.input, f)
			}
			continue
		}
		fmt.Fprintf(o.streams.Err, "error: %s\n", report.CleanLines(e.Error()))
		failed = true
	}
	if failed {
		return nil, exitError{ExitError}
	}
	var refs []string
	for _, obj := range objs {
		if w := obj.Workload(); w != nil {
			winsupport.VisitContainers(w.Spec, w.SpecPath, func(c *corev1.Container, _ *field.Path) {
				if c.Image != "" {
					refs = append(refs, c.Image)
				}
			})
		}
	}
	return refs, nil
}

func (o *imagesOptions) rows(found map[string]*winsupport.ResolvedImage, failed map[string]error, sandboxes map[string]bool) []imagereport.Row {
	var rows []imagereport.Row
	for ref, r := range found {
		row := imagereport.Row{Ref: ref, Sandbox: sandboxes[ref], Digest: r.Digest, Index: r.Index, Platforms: r.Platforms}
		for _, p := range o.cluster.Pools {
			if row.Sandbox && p.Sandbox() != ref {
				continue
			}
			row.Pools = append(row.Pools, pull(p, r))
		}
		rows = append(rows, row)
	}
	for ref, err := range failed {
		row := imagereport.Row{Ref: ref, Sandbox: sandboxes[ref], Error: err.Error()}
		if e, ok := err.(*registry.Error); ok {
			row.Hint = e.ResolveHint()
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Sandbox != rows[j].Sandbox {
			return !rows[i].Sandbox
		}
		return rows[i].Ref < rows[j].Ref
	})
	return rows
}

// pull is what a node of the pool pulls, under each isolation.
func pull(p cluster.Pool, r *winsupport.ResolvedImage) imagereport.Pull {
	host := winsupport.Host{OS: p.OS, Architecture: p.Arch, Build: p.WindowsBuild}
	out := imagereport.Pull{Pool: p.Name, OS: p.OS, Build: p.WindowsBuild}
	out.Process, out.OK = pickText(host, r, winsupport.ProcessIsolation)
	if p.OS == "windows" {
		out.HyperV, _ = pickText(host, r, winsupport.HyperVIsolation)
	}
	return out
}

// pickText names the entry pulled, or the error the runtime prints: the
// pull fails when no entry fits the node (containerd); under Hyper-V an
// image whose Windows entries are all newer than the host fails to start
// (HCS).
func pickText(h winsupport.Host, r *winsupport.ResolvedImage, iso winsupport.Isolation) (string, bool) {
	if i, ok := h.Pick(r.Platforms, iso); ok {
		return r.Platforms[i].String(), true
	}
	if iso == winsupport.HyperVIsolation && hasOS(r, "windows") {
		return "CreateContainerError: " + winsupport.HostOSMismatchMessage, false
	}
	return "ErrImagePull: " + winsupport.NoPlatformMatch + ": not found", false
}

func hasOS(r *winsupport.ResolvedImage, os string) bool {
	for _, p := range r.Platforms {
		if p.OS == os {
			return true
		}
	}
	return false
}

// sandboxRuns reports whether a sandbox image starts on every pool that
// uses it.
func sandboxRuns(r imagereport.Row) bool {
	for _, p := range r.Pools {
		if !p.OK {
			return false
		}
	}
	return r.Error == ""
}
