package cluster

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// What a Node's own annotations say of its network: the CNI agent that
// wrote them and, for flannel, the backend and so the Windows network
// mode. audit (internal/live) and policy export --check-cluster read
// them alike.

// cniAnnotations are Node annotation prefixes CNI agents write.
var cniAnnotations = []struct{ prefix, cni string }{
	// flannel's kube subnet manager (https://github.com/flannel-io/flannel/blob/master/pkg/subnet/kube:
	// flannel.alpha.coreos.com/backend-type, public-ip, ...).
	{"flannel.alpha.coreos.com/", "flannel"},
	// calico/node (projectcalico.org/IPv4Address, ...).
	{"projectcalico.org/", "calico"},
}

// flannelBackend is the annotation flannel's kube subnet manager writes
// with the node's backend (flannel-io/flannel v0.28.9
// pkg/subnet/kube/annotations.go BackendType): vxlan delegates to
// win-overlay, host-gw to win-bridge on Windows.
const flannelBackend = "flannel.alpha.coreos.com/backend-type"

// NodeCNI is the CNI whose agent annotated the node, "" when none did.
func NodeCNI(n *corev1.Node) string {
	for k := range n.Annotations {
		for _, a := range cniAnnotations {
			if strings.HasPrefix(k, a.prefix) {
				return a.cni
			}
		}
	}
	return ""
}

// NodeNetworkMode is the Windows network mode the node's flannel backend
// implies (overlay for vxlan, l2bridge for host-gw), "" when unknown.
func NodeNetworkMode(n *corev1.Node) string {
	switch strings.ToLower(n.Annotations[flannelBackend]) {
	case "vxlan":
		return "overlay"
	case "host-gw":
		return "l2bridge"
	}
	return ""
}
