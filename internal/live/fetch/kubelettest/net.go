package kubelettest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
)

// TestNet is a veth pair whose ends carry 192.0.2.0/24 (TEST-NET-1)
// addresses: a non-loopback address of this machine the API server
// accepts to proxy to (kubernetes/kubernetes v1.36.3
// pkg/registry/core/node/strategy.go, isProxyableHostname: only global
// unicast addresses).
type TestNet struct {
	link string
	// KubeletIP is the address the fake kubelets listen on.
	KubeletIP net.IP
}

// NewTestNet makes the pair (it needs root and iproute2), named and
// numbered by the process ID so that concurrent runs do not collide.
// Close removes it.
func NewTestNet() (*TestNet, error) {
	id := os.Getpid() % 60
	a, b := fmt.Sprintf("wkln%da", os.Getpid()%100000), fmt.Sprintf("wkln%db", os.Getpid()%100000)
	host, kubelet := fmt.Sprintf("192.0.2.%d", 4*id+1), fmt.Sprintf("192.0.2.%d", 4*id+2)
	n := &TestNet{link: a, KubeletIP: net.ParseIP(kubelet)}
	steps := [][]string{
		{"link", "add", a, "type", "veth", "peer", "name", b},
		{"addr", "add", host + "/30", "dev", a},
		{"addr", "add", kubelet + "/30", "dev", b},
		{"link", "set", a, "up"},
		{"link", "set", b, "up"},
	}
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			n.Close()
			return nil, fmt.Errorf("ip %s: %v: %s (the test needs root and iproute2 to make a veth pair)", strings.Join(s, " "), err, out)
		}
	}
	return n, nil
}

// Close deletes the pair (deleting one end deletes both).
func (n *TestNet) Close() {
	exec.Command("ip", "link", "del", n.link).Run()
}
