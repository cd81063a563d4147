package audit

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/live/fetch/kubelettest"
)

// benchLogs are the log answers of a busy, healthy node: 300 lines of
// the last hour for each of kubelet, containerd, kube-proxy and flanneld
// (about 30 KiB each), in their services' formats, so that a log read
// costs the transfer and parsing of a real answer. The other services
// answer "log not found", as on a node without them.
func benchLogs(now time.Time) map[string][]byte {
	const lines = 300
	logs := map[string][]byte{}
	for _, svc := range []string{"kubelet", "containerd", "kube-proxy", "flanneld"} {
		var b strings.Builder
		for i := range lines {
			t := now.Add(-time.Hour + time.Duration(i+1)*time.Hour/(lines+1)).UTC()
			switch svc {
			case "containerd":
				fmt.Fprintf(&b, "time=%q level=info msg=\"ImageCreate event name:\\\"mcr.microsoft.com/windows/servercore:ltsc2022\\\" labels:{key:\\\"io.cri-containerd.image\\\" value:\\\"managed\\\"}\"\n", t.Format(time.RFC3339Nano))
			default:
				fmt.Fprintf(&b, "I%s    4712 %s.go:%d] \"Routine housekeeping\" pod=\"bench/web-%d\" status=\"Running\" elapsed=\"12.3ms\"\n", t.Format("0102 15:04:05.000000"), svc, 100+i, i)
			}
		}
		logs[svc] = []byte(b.String())
	}
	return logs
}

// serveKubelets gives the first n Windows nodes a fake kubelet on a veth
// pair (the bodies of internal/live/fetch/testdata/kubelet and benchLogs, each answer
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
	spec := &kubelettest.Node{Configz: configz, Stats: stats, Logs: benchLogs(time.Now()), Delay: 10 * time.Millisecond}
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
