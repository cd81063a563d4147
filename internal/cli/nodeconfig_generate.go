package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/atomicwrite"

	"github.com/winkube/winkube/internal/nodeconfig/generate"
)

type nodeGenerateOptions struct {
	streams Streams
	input   string
	out     string
	quiet   bool
}

func newNodeGenerateCommand(s Streams) *cobra.Command {
	o := &nodeGenerateOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "generate -f node.yaml --out-dir DIR",
		Short: "Write a Windows node's configuration from a WindowsNode description",
		Long: `Write the KubeletConfiguration, KubeProxyConfiguration (none for Antrea),
containerd config.toml (schema version 2 for containerd 1.x, 3 for 2.x), CNI
configuration, flannel net-conf.json and a PowerShell script that registers the
services. DIR stands for the node's C:\: files land where the node expects them
(DIR/var/lib/kubelet/config.yaml is C:\var\lib\kubelet\config.yaml).

The input is strict (unknown fields are errors):

  apiVersion: winkube.io/v1alpha1
  kind: WindowsNode
  kubernetesVersion: "1.36"
  windowsBuild: ltsc2022          # or 10.0.20348
  containerdVersion: 2.1.4
  cni: flannel-overlay            # flannel-l2bridge, calico-vxlan, antrea
  podCIDR: 10.244.0.0/16
  serviceCIDR: 10.96.0.0/12
  sourceVip: 10.244.1.2           # overlay only: reserved from the node's pod subnet
  reserved: {memory: 2Gi, cpu: 500m}
  hyperV: true                    # add the runhcs-wcow-hypervisor handler

What it writes passes 'winkube nodeconfig validate' with no findings.`,
		Example: `  winkube nodeconfig generate -f node.yaml --out-dir out/
  winkube nodeconfig validate --root out/ out/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.input == "" || o.out == "" {
				return usagef("nodeconfig generate needs -f node.yaml and --out-dir DIR")
			}
			return o.run()
		},
	}
	cmd.Flags().StringVarP(&o.input, "filename", "f", "", "WindowsNode description (winkube.io/v1alpha1)")
	cmd.Flags().StringVar(&o.out, "out-dir", "", "folder standing for the node's C:\\")
	cmd.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "print no status on stderr")
	return cmd
}

func (o *nodeGenerateOptions) run() error {
	r, err := generate.Load(o.input)
	if err != nil {
		return usageError{err}
	}
	for _, f := range generate.Generate(r) {
		dst := filepath.Join(o.out, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(dst), err)
		}
		if err := atomicwrite.File(dst, f.Data, 0o644); err != nil {
			return err
		}
		if !o.quiet {
			fmt.Fprintln(o.streams.Err, "wrote", dst)
		}
	}
	return nil
}
