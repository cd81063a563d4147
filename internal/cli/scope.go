package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/cloudprofile"
	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/config"
	"github.com/winkube/winkube/internal/nodeconfig"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// scope is what lint, fix and simulate resolve the same way: the config
// file, the cluster, the Kubernetes version and the enabled rules.
type scope struct {
	configPath  string
	clusterPath string
	k8sVersion  string
	nodeConfig  []string

	cfg     *config.Config
	cluster *cluster.Cluster
	// profile is set when --cluster is a node-pool definition (eksctl,
	// Terraform, ARM/Bicep, Karpenter, a script): its notes are printed.
	profile *cloudprofile.Profile
	model   winsupport.Model
	enabled []*rule.Rule
}

func (s *scope) addFlags(f *pflag.FlagSet) {
	f.StringVar(&s.configPath, "config", "", "config file (default ./"+config.FileName+" when present)")
	f.StringVar(&s.clusterPath, "cluster", "", "built-in profile ("+strings.Join(cluster.ProfileNames(), ", ")+") or cluster file: a winkube Cluster, kubectl get nodes -o yaml, or node pools as code: an eksctl ClusterConfig, Terraform (.tf), an ARM template or Bicep file, Karpenter NodePools, a script (.sh, .ps1) of az/eksctl/aws/gcloud commands (default: the config's cluster, else the reference cluster, assumed)")
	f.StringSliceVar(&s.nodeConfig, "node-config", nil, "a Windows node's configuration files or directory (CNI config, flannel net-conf.json, KubeProxyConfiguration): fill the Windows pools' cni, networkMode and kubeProxyDSR the cluster profile leaves unknown")
	f.StringVar(&s.k8sVersion, "kubernetes-version", "", fmt.Sprintf("Kubernetes version (%s to %s; default: the config's, else the cluster file's, else %s)", winsupport.Oldest, winsupport.Newest, winsupport.Newest))
}

// resolve reads the config and cluster files. Precedence: flags, then the
// config file, then the cluster file, then the built-in defaults.
func (s *scope) resolve() error {
	suite := rules.Suite()
	path := s.configPath
	if path == "" {
		if _, err := os.Stat(config.FileName); err == nil {
			path = config.FileName
		}
	}
	if path != "" {
		cfg, err := config.Load(path, knownRules())
		if err != nil {
			return usageError{err}
		}
		s.cfg = cfg
	}
	s.cluster = cluster.Assumed()
	if s.cfg != nil && s.cfg.Cluster != nil {
		s.cluster = s.cfg.Cluster
		s.cluster.Source = "config " + path
	}
	if s.clusterPath != "" {
		c, err := s.loadCluster()
		if err != nil {
			return usageError{err}
		}
		s.cluster = c
	}
	if len(s.nodeConfig) > 0 {
		if err := s.fillFromNodeConfig(); err != nil {
			return err
		}
	}
	version := s.k8sVersion
	if version == "" && s.cfg != nil {
		version = s.cfg.KubernetesVersion
	}
	if version == "" {
		version = s.cluster.KubernetesVersion
	}
	s.model = winsupport.Default()
	if version != "" {
		v, err := winsupport.ParseVersion(version)
		if err != nil {
			return usagef("--kubernetes-version: %v", err)
		}
		s.model = winsupport.ForVersion(v)
	}
	s.enabled = s.cfg.Apply(suite)
	return nil
}

// explicitModel is the support model when a Kubernetes version was given
// (flag or config), or nil: a live command then takes the server's version.
func (s *scope) explicitModel() *winsupport.Model {
	if s.k8sVersion == "" && (s.cfg == nil || s.cfg.KubernetesVersion == "") {
		return nil
	}
	m := s.model
	return &m
}

// warnCluster prints the cluster profile's warnings on stderr unless -q.
func (s *scope) warnCluster(out *output, streams Streams) {
	for _, w := range s.cluster.Warnings() {
		out.status(streams, "warning: %s", w)
	}
	if s.profile == nil {
		return
	}
	for _, n := range append(s.profile.Notes, s.profile.Retired(s.model.V.Minor)...) {
		out.status(streams, "warning: %s", n)
	}
}

// loadCluster reads --cluster: a built-in profile name, else a file.
func (s *scope) loadCluster() (*cluster.Cluster, error) {
	if slices.Contains(cluster.ProfileNames(), s.clusterPath) {
		if _, err := os.Stat(s.clusterPath); err != nil {
			return cluster.Named(s.clusterPath)
		}
	}
	if cloudprofile.Is(s.clusterPath) {
		pr, err := cloudprofile.Load(s.clusterPath)
		if err != nil {
			return nil, err
		}
		s.profile = pr
		pr.Cluster.Source = "node pools read from " + pr.Format + " " + s.clusterPath
		return pr.Cluster, nil
	}
	c, err := cluster.Load(s.clusterPath)
	if err != nil {
		return nil, err
	}
	c.Source = "cluster file " + s.clusterPath
	if c.Observed != nil {
		c.Source = "nodes read from " + s.clusterPath
	}
	return c, nil
}

// announce prints which cluster profile the command checks against and
// where it came from, so the cluster is never silently assumed.
func (s *scope) announce(w io.Writer, quiet bool) {
	if quiet {
		return
	}
	fmt.Fprintf(w, "checking against %s\n", s.cluster.Describe())
}

// fillFromNodeConfig reads --node-config and fills what the Windows pools
// of the cluster leave unknown.
func (s *scope) fillFromNodeConfig() error {
	files, err := readNodeConfig(s.nodeConfig, func(err error) error {
		return usagef("--node-config: %v", err)
	})
	if err != nil {
		return err
	}
	nodeconfig.Network(files).Fill(s.cluster)
	s.cluster.Source += ", Windows pool network from --node-config"
	return nil
}
