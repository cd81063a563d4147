package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/doctor"
	"github.com/winkube/winkube/internal/live/fetch"
	"github.com/winkube/winkube/internal/report/doctorreport"
	"github.com/winkube/winkube/internal/version"
)

type doctorOptions struct {
	scope
	liveFlags
	output
	noSim         bool
	causes        bool
	creatingAfter time.Duration
	streams       Streams
}

func newDoctorCommand(s Streams) *cobra.Command {
	o := &doctorOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "doctor [POD] [-n NAMESPACE | -A]",
		Short: "Explain why pods are stuck: Pending, ContainerCreating, image pulls, crashes",
		Long: `Find the unhealthy pods (Pending, ContainerCreating past --creating-after,
ErrImagePull/ImagePullBackOff, CreateContainerError, RunContainerError,
CrashLoopBackOff, Failed, Evicted, restarting, not Ready) and name the cause of
each: the pod's status and events (joined by the pod's UID), its node's facts,
its owner, and winkube's lint and simulate verdicts are weighed together. Each
diagnosis has a stable cause ID, the evidence quoted, the explanation, the
runbook steps and the next commands to run, kubectl and PowerShell on the node.

With --node-reads=direct or --node-reads=proxy it also reads the recent logs
of each Windows node's kubelet, containerd, kube-proxy and CNI daemons through
the kubelet's node log query (/logs/?query=), and its stats, and names node
causes from the log lines alone (the HNS network missing, kube-proxy failing
to program Services, the runtime unreachable ...), quoting each line with its
timestamp. Direct reads need get on nodes/log and nodes/stats; proxy reads
need nodes/proxy.

With --causes the causes doctor names are listed, in the order tried, and no
cluster is read (winkube rules --family doctor lists them too).

With POD only that pod is diagnosed. Without -n or -A the kubeconfig context's
namespace is read, as kubectl does.

Exit status: 0 when no pod is unhealthy and no node has a cause, 1 when one
has, 2 for a usage error or a tool failure.`,
		Example: `  winkube doctor -A
  winkube doctor -n shop web-7d9c6b5f4-x2k8q
  winkube doctor -A -o json | jq '.diagnoses[] | {pod: .pod.name, cause}'
  winkube doctor --causes -o json | jq -r '.[].id'
  kubectl winkube doctor -n shop`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.causes {
				return o.listCauses(args)
			}
			if err := o.validate(args); err != nil {
				return err
			}
			return o.run(cmd, args)
		},
	}
	f := cmd.Flags()
	o.output.addFlags(f, "report", doctorreport.Formats...)
	o.scope.addFlags(f)
	o.liveFlags.addFlags(f)
	f.DurationVar(&o.creatingAfter, "creating-after", doctor.DefaultCreatingAfter, "how long ContainerCreating is normal (a first pull of a Windows image takes minutes)")
	f.BoolVar(&o.noSim, "no-simulation", false, "skip the simulation on the live nodes")
	f.BoolVar(&o.causes, "causes", false, "list the causes doctor names, in the order tried, and read no cluster")
	return cmd
}

// listCauses writes the catalogue of causes.
func (o *doctorOptions) listCauses(args []string) error {
	if err := o.output.validate(); err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("--causes takes no pod")
	}
	return o.render(o.streams, func(w io.Writer, format string, _ bool) error {
		if format == "json" {
			return doctorreport.CausesJSON(w, doctor.Causes())
		}
		return doctorreport.CausesText(w, doctor.Causes())
	})
}

func (o *doctorOptions) validate(args []string) error {
	if err := o.output.validate(); err != nil {
		return err
	}
	if len(args) == 1 && o.opts.AllNamespaces {
		return usagef("a pod name needs its namespace: use -n, not -A")
	}
	if err := o.liveFlags.validate(); err != nil {
		return err
	}
	o.opts.EventSelector = doctor.EventSelector
	return o.resolve()
}

func (o *doctorOptions) run(cmd *cobra.Command, args []string) error {
	limitMemory(doctorMemoryLimit)
	opts := doctor.Options{Rules: o.enabled, Settings: o.cfg.Settings(), CreatingAfter: o.creatingAfter, NoSimulation: o.noSim, Model: o.explicitModel(), Now: time.Now()}
	if len(args) == 1 {
		opts.Pod = args[0]
	}
	// Only the events of the pods doctor looks into are read.
	o.opts.EventsAbout = doctor.Examines(opts)
	if k := o.kubeletOptions(); k != nil {
		// Only the lines a node cause can match are kept.
		k.Stats, k.Services, k.KeepLine = true, fetch.DefaultServices, doctor.KeepLogLine
		o.opts.Kubelets = k
	}
	snap, err := readSnapshot(cmd.Context(), o.streams, o.quiet, o.opts)
	if err != nil {
		return err
	}
	noteKubelets(o.streams, o.quiet, snap)
	if !o.quiet {
		for _, k := range snap.Kubelets {
			for _, u := range k.Unread {
				fmt.Fprintf(o.streams.Err, "warning: cannot read %s of node %s's kubelet: %s%s\n", u.Endpoint, k.Node, u.Err, grantHint(u.Permission))
			}
		}
	}
	if !o.quiet {
		for _, d := range snap.Denied {
			fmt.Fprintf(o.streams.Err, "warning: cannot list %s: %s\n", d.Resource, d.Permission())
		}
	}
	rep, err := doctor.Diagnose(cmd.Context(), snap, opts)
	if err != nil {
		return err
	}
	err = o.render(o.streams, func(w io.Writer, format string, _ bool) error {
		if format == "json" {
			return doctorreport.JSON(w, rep, version.Get().Version)
		}
		return doctorreport.Text(w, rep)
	})
	if err != nil {
		return err
	}
	if len(snap.Denied) > 0 {
		var kinds []string
		for _, d := range snap.Denied {
			kinds = append(kinds, d.Resource)
		}
		return fmt.Errorf("could not list %s: pods or evidence the diagnosis needs were not read", strings.Join(kinds, ", "))
	}
	if rep.Unhealthy > 0 || rep.Nodes > 0 {
		return exitError{ExitFindings}
	}
	return nil
}

func grantHint(permission string) string {
	if permission == "" {
		return ""
	}
	return " (grant " + permission + ")"
}
