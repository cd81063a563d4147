package nodeconfig

import "github.com/winkube/winkube/internal/cluster"

// PoolNetwork is what a Windows node's configuration files say of its
// pool's network, for the cluster model: the CNI plugin (the main plugin of
// its CNI configuration, or flannel when a net-conf.json is given) and
// whether kube-proxy runs with DSR (KubeProxyConfiguration
// winkernel.enableDSR), and the network mode (overlay for win-overlay,
// flannel's vxlan backend and Calico's VXLAN; l2bridge for win-bridge and
// flannel's host-gw). Zero values mean the files do not say.
type PoolNetwork struct {
	CNI  string
	DSR  *bool
	Mode string
}

// Network reads the pool network of one node's files.
func Network(files []*File) PoolNetwork {
	var out PoolNetwork
	for _, n := range networks(files) {
		if c, ok := cluster.CNIOf(n.cni); ok && (out.CNI == "" || n.cni == "flannel") {
			out.CNI = c.Name
		}
		switch {
		case n.overlay:
			out.Mode = "overlay"
		case n.bridge && out.Mode == "":
			out.Mode = "l2bridge"
		}
	}
	for _, f := range files {
		if f.Kind == KubeProxy && f.KubeProxy != nil {
			dsr := f.KubeProxy.Winkernel.EnableDSR
			out.DSR = &dsr
		}
	}
	return out
}

// Fill sets the Windows pools' cni, networkMode and kubeProxyDSR where the cluster
// profile leaves them unknown.
func (n PoolNetwork) Fill(c *cluster.Cluster) {
	for i := range c.Pools {
		p := &c.Pools[i]
		if p.OS != "windows" {
			continue
		}
		if p.CNI == "" {
			p.CNI = n.CNI
		}
		if p.NetworkMode == "" {
			p.NetworkMode = n.Mode
		}
		if p.KubeProxyDSR == nil && n.DSR != nil {
			dsr := *n.DSR
			p.KubeProxyDSR = &dsr
		}
	}
}
