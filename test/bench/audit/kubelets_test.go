package audit

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/live/fetch/kubelettest"
)

// serveKubelets gives the first n Windows nodes a fake kubelet on a veth
// pair (the bodies of internal/live/fetch/testdata/kubelet, each answer
// after 10 ms, no authorization: the benchmark measures winkube's side)
// and registers each node's address and kubelet port, as a kubelet does.
// It returns the kubelets' CA file and the counter of requests in flight.
func serveKubelets(b *testing.B, ctx context.Context, c kubernetes.Interface, n int) (string, *kubelettest.Flight) {
	b.Helper()
	tn, err := kubelettest.NewTestNet()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(tn.Close)
	ca, err := kubelettest.NewCA()
	if err != nil {
		b.Fatal(err)
	}
	caFile := filepath.Join(b.TempDir(), "kubelet-ca.crt")
	if err := os.WriteFile(caFile, ca.PEM, 0o600); err != nil {
		b.Fatal(err)
	}
	cert, err := ca.Serving(tn.KubeletIP)
	if err != nil {
		b.Fatal(err)
	}
	bodies := filepath.Join("..", "..", "..", "internal", "live", "fetch", "testdata", "kubelet")
	configz, err := os.ReadFile(filepath.Join(bodies, "configz.json"))
	if err != nil {
		b.Fatal(err)
	}
	stats, err := os.ReadFile(filepath.Join(bodies, "stats-summary.json"))
	if err != nil {
		b.Fatal(err)
	}
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: corev1.LabelOSStable + "=windows"})
	if err != nil {
		b.Fatal(err)
	}
	if len(nodes.Items) < n {
		b.Fatalf("%d Windows nodes, want at least %d to serve", len(nodes.Items), n)
	}
	flight := &kubelettest.Flight{}
	spec := &kubelettest.Node{Configz: configz, Stats: stats, Delay: 10 * time.Millisecond}
	for i := range n {
		s, err := kubelettest.Start(net.JoinHostPort(tn.KubeletIP.String(), "0"), cert, nil, spec, nil, flight)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(s.Close)
		_, port, _ := net.SplitHostPort(s.Addr)
		p, _ := strconv.Atoi(port)
		node := &nodes.Items[i]
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: tn.KubeletIP.String()}}
		node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
		if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	return caFile, flight
}
