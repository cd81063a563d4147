package nodeconfig

import (
	"fmt"
	"net/netip"
	"sort"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// Run is a node-config rule's run function (its rule.Rule's Run): it
// runs once over every file given.
type Run func(*Pass)

// Family says package nodeconfig runs it.
func (Run) Family() rule.Family { return rule.FamilyNodeConfig }

// Options describe the node and cluster the files are for. Every field is
// optional; checks that need an absent one do not run.
type Options struct {
	// PodCIDR and ServiceCIDR are the cluster's (kube-controller-manager
	// --cluster-cidr, kube-apiserver --service-cluster-ip-range).
	PodCIDR, ServiceCIDR netip.Prefix
	// Root is the local folder that stands for the node's C:\, so paths in
	// one file (containerd's conf_dir) can be matched with other files.
	Root string
	// BuildNumber is the node's Windows build (17763, 20348, 26100); 0 when
	// unknown.
	BuildNumber int
	// ContainerdMajor is the containerd release line (1 or 2); 0 when unknown.
	ContainerdMajor int
	Model           winsupport.Model
}

// Pass is what a check sees: every file and the options.
type Pass struct {
	Rule  *rule.Rule
	Files []*File
	Opts  Options
	emit  func(rule.Finding)
}

// Of returns the files of a kind, in the order given.
func (p *Pass) Of(k Kind) []*File {
	var out []*File
	for _, f := range p.Files {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

// Reportf reports a finding at a field path of f.
func (p *Pass) Reportf(f *File, path, format string, args ...any) {
	p.Report(f, path, "", fmt.Sprintf(format, args...))
}

// Report reports a finding with a hint saying what to do.
func (p *Pass) Report(f *File, path, hint, msg string) {
	p.report(f, path, hint, msg, p.Rule.Severity)
}

// Warn reports a finding one level below the rule's severity, for a case
// where the files alone cannot show that the problem is real. A severity
// the config sets wins, as it does for every finding of the rule.
func (p *Pass) Warn(f *File, path, hint, msg string) {
	p.report(f, path, hint, msg, max(p.Rule.Severity-1, rule.Info))
}

func (p *Pass) report(f *File, path, hint, msg string, sev rule.Severity) {
	line, col := f.Locate(path)
	fd := rule.Finding{Rule: p.Rule.ID, Severity: sev, Message: msg, Hint: hint,
		Path: path, File: f.Path, Line: line, Column: col}
	fd.Severity = p.Rule.SeverityOf(fd)
	p.emit(fd)
}

// Validate runs the enabled rules over files and returns the findings in
// file and line order. enabled holds the rules to run (as configured:
// config.Apply over Rules()); nil runs them all.
func Validate(files []*File, enabled []*rule.Rule, opts Options) []rule.Finding {
	if enabled == nil {
		enabled = Rules()
	}
	var out []rule.Finding
	for _, r := range enabled {
		if run, ok := r.Run.(Run); ok {
			run(&Pass{Rule: r, Files: files, Opts: opts, emit: func(f rule.Finding) { out = append(out, f) }})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}

// Rules lists every node rule, in catalogue order; nothing registers
// itself. Each carries its run function, but input, whose findings are
// the load errors the caller of Parse reports.
func Rules() []*rule.Rule {
	return []*rule.Rule{
		inputRule,
		kubeletCgroupsPerQOS,
		kubeletEnforceNodeAllocatable,
		kubeletLinuxOnlyOption,
		kubeletRuntimeEndpoint,
		kubeletReserves,
		kubeletEvictionHard,
		kubeletResourceManagers,
		lockedFeatureGate,
		proxyMode,
		proxyNetworkName,
		proxySourceVip,
		proxyDSR,
		proxyWithAntrea,
		containerdSchema,
		containerdSandboxImage,
		containerdRuntimes,
		containerdSnapshotter,
		cniPolicyVersion,
		cniOutboundNAT,
		flannelVXLAN,
		networkNameMismatch,
		cniConfDir,
		cidrMismatch,
	}
}
