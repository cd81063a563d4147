package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/config"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/version"
	"github.com/winkube/winkube/internal/winsupport"
)

func newNodeConfigCommand(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "nodeconfig",
		Short: "Validate and generate a Windows node's kubelet, kube-proxy, containerd and CNI configuration",
		Long: `The Windows node itself is configured in four formats: the kubelet's and
kube-proxy's YAML, containerd's TOML and the CNI's JSON. nodeconfig checks them,
alone and against each other, and generates a set that passes its checks.`,
	}
	cmd.AddCommand(newNodeValidateCommand(s), newNodeGenerateCommand(s))
	return cmd
}

type nodeValidateOptions struct {
	output
	streams Streams
	failGate
	configPath                 string
	build, containerd          string
	podCIDR, serviceCIDR, root string
	k8sVersion                 string
	opts                       nodeconfig.Options
	enabled                    []*rule.Rule
	settings                   *rule.Settings
}

func newNodeValidateCommand(s Streams) *cobra.Command {
	o := &nodeValidateOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "validate [flags] PATH...",
		Short: "Check node configuration files (recognised by content; folders are walked)",
		Long: `Check a Windows node's KubeletConfiguration, KubeProxyConfiguration, containerd
config.toml, CNI .conf/.conflist and flannel net-conf.json. Files are recognised
by their content; give several at once to have them checked against each other
(kube-proxy's networkName against the CNI network, containerd's conf_dir against
the CNI file with --root).

Exit status: 0 when nothing is at or above --fail-on, 1 when something is,
2 for a usage error or a tool failure.`,
		Example: `  winkube nodeconfig validate C:/k/kubelet-config.yaml C:/k/kube-proxy.yaml
  winkube nodeconfig validate --root node/ --windows-build 10.0.20348 --containerd-version 2.1.4 \
      --pod-cidr 10.244.0.0/16 --service-cidr 10.96.0.0/12 node/
  winkube nodeconfig validate --output-file sarif=node.sarif node/`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("nodeconfig validate needs at least one file or folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return o.run(args)
		},
	}
	f := cmd.Flags()
	o.output.addFlags(f, "report", report.Formats...)
	o.failGate.addFlag(f)
	f.StringVar(&o.configPath, "config", "", "config file for rule disable/severity (default ./"+config.FileName+" when present)")
	f.StringVar(&o.build, "windows-build", "", "the node's Windows build: 10.0.20348, 20348 or ltsc2022 (enables build checks)")
	f.StringVar(&o.containerd, "containerd-version", "", "the node's containerd version, e.g. 1.7.27 or 2.1.4 (checks the config schema version)")
	f.StringVar(&o.podCIDR, "pod-cidr", "", "the cluster's pod CIDR (kube-controller-manager --cluster-cidr)")
	f.StringVar(&o.serviceCIDR, "service-cidr", "", "the cluster's service CIDR (kube-apiserver --service-cluster-ip-range)")
	f.StringVar(&o.root, "root", "", "local folder standing for the node's C:\\ (matches containerd's conf_dir with the CNI file)")
	f.StringVar(&o.k8sVersion, "kubernetes-version", "", fmt.Sprintf("Kubernetes version of the node (default %s)", winsupport.Newest))
	return cmd
}

func (o *nodeValidateOptions) validate() error {
	if err := validateReportFlags(&o.output, &o.failGate); err != nil {
		return err
	}
	var errs []error
	o.opts.Model = winsupport.Default()
	if o.k8sVersion != "" {
		v, err := winsupport.ParseVersion(o.k8sVersion)
		if err != nil {
			errs = append(errs, fmt.Errorf("--kubernetes-version: %w", err))
		}
		o.opts.Model = winsupport.ForVersion(v)
	}
	if o.build != "" {
		n, err := buildNumber(o.opts.Model, o.build)
		if err != nil {
			errs = append(errs, err)
		}
		o.opts.BuildNumber = n
	}
	if o.containerd != "" {
		major, _, _ := strings.Cut(strings.TrimPrefix(o.containerd, "v"), ".")
		m, err := strconv.Atoi(major)
		if err != nil || (m != 1 && m != 2) {
			errs = append(errs, fmt.Errorf("--containerd-version %q: want 1.x or 2.x", o.containerd))
		}
		o.opts.ContainerdMajor = m
	}
	for _, c := range []struct {
		flag, v string
		into    *netip.Prefix
	}{{"--pod-cidr", o.podCIDR, &o.opts.PodCIDR}, {"--service-cidr", o.serviceCIDR, &o.opts.ServiceCIDR}} {
		if c.v == "" {
			continue
		}
		p, err := netip.ParsePrefix(c.v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q: want a CIDR such as 10.244.0.0/16", c.flag, c.v))
		}
		*c.into = p.Masked()
	}
	o.opts.Root = o.root
	if err := errors.Join(errs...); err != nil {
		return usageError{err}
	}
	return o.resolveRules()
}

// resolveRules applies the config file's rule settings to the node rules.
// The config may name any winkube rule, so it is checked against both
// suites.
func (o *nodeValidateOptions) resolveRules() error {
	node := nodeconfig.Rules()
	path := o.configPath
	if path == "" {
		if _, err := os.Stat(config.FileName); err == nil {
			path = config.FileName
		}
	}
	if path == "" {
		o.enabled = node
		return nil
	}
	cfg, err := config.Load(path, knownRules())
	if err != nil {
		return usageError{err}
	}
	o.settings = cfg.Settings()
	o.enabled = o.settings.ApplyAll(node)
	return nil
}

// buildNumber reads 10.0.20348, 20348 or an LTSC tag.
func buildNumber(m winsupport.Model, s string) (int, error) {
	for _, b := range m.Builds() {
		if slices.Contains(b.Tags, strings.ToLower(s)) {
			s = b.Build
		}
	}
	// 10.0.20348.2849 (with the update revision) names build 20348.
	if b, ok := winsupport.KernelBuild(s); ok {
		s = b
	}
	num := strings.TrimPrefix(s, "10.0.")
	n, err := strconv.Atoi(num)
	if err != nil || n < 10000 {
		return 0, fmt.Errorf("--windows-build %q: want 10.0.20348, 20348 or ltsc2022", s)
	}
	return n, nil
}

func (o *nodeValidateOptions) run(args []string) error {
	paths, err := nodeFiles(args)
	if err != nil {
		return err
	}
	var files []*nodeconfig.File
	var findings []rule.Finding
	for _, p := range paths {
		data, err := nodeconfig.ReadFile(p)
		if err != nil {
			findings = append(findings, loadFindings(err)...)
			continue
		}
		f, err := nodeconfig.Parse(p, data)
		if err != nil {
			findings = append(findings, loadFindings(err)...)
			continue
		}
		files = append(files, f)
	}
	findings = append(configuredInput(o.settings, findings), nodeconfig.Validate(files, o.enabled, o.opts)...)
	rep := &report.Report{Findings: findings, Rules: o.enabled, Files: len(paths), Objects: len(files), Tool: version.Get().Version}
	err = o.render(o.streams, func(w io.Writer, format string, colour bool) error {
		return report.Write(w, format, rep, report.Options{Color: colour})
	})
	if err != nil {
		return err
	}
	return o.failGate.exit(findings)
}

// configuredInput applies the config to the findings of files that could
// not be read, as Validate does to the other rules' findings.
func configuredInput(set *rule.Settings, load []rule.Finding) []rule.Finding {
	in := set.Apply(nodeconfig.Input())
	if in == nil {
		return nil
	}
	for i := range load {
		load[i].Severity = in.SeverityOf(load[i])
	}
	return load
}

func loadFindings(err error) []rule.Finding {
	var out []rule.Finding
	var visit func(error)
	visit = func(e error) {
		var le *nodeconfig.LoadError
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range j.Unwrap() {
				visit(c)
			}
			return
		}
		if errors.As(e, &le) {
			out = append(out, nodeconfig.InputFinding(le))
		}
	}
	visit(err)
	return out
}

// readNodeConfig reads and parses the --node-config files under paths. A
// file that cannot be read is a usage error; one that does not parse is
// handed to unparsed, which returns nil to leave it out or the error to
// stop with.
func readNodeConfig(paths []string, unparsed func(error) error) ([]*nodeconfig.File, error) {
	files, err := nodeFiles(paths)
	if err != nil {
		return nil, err
	}
	var out []*nodeconfig.File
	for _, p := range files {
		data, err := nodeconfig.ReadFile(p)
		if err != nil {
			return out, usagef("--node-config: %v", err)
		}
		f, err := nodeconfig.Parse(p, data)
		if err != nil {
			if err := unparsed(err); err != nil {
				return out, err
			}
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// nodeFiles expands folders into the files under them, sorted.
func nodeFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, usagef("%s: %v", a, errors.Unwrap(err))
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && nodeExt(p) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walking %s: %w", a, err)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// nodeExt says which files in a folder are node configuration candidates.
func nodeExt(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".json", ".conf", ".conflist", ".toml":
		return true
	}
	return false
}
