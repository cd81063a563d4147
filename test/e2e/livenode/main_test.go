package livenode

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/live/fetch/kubelettest"
	"github.com/winkube/winkube/test/controlplane"
)

var (
	cp *controlplane.ControlPlane
	// caFile is the CA of the fake kubelets' serving certificates.
	caFile string
	// logTime is the time every served log line carries.
	logTime time.Time
)

// bodies is where the kubelet answers are kept: the unit tests of fetch
// use the same files (see their README.md for their origin).
var bodies = filepath.Join("..", "..", "..", "internal", "live", "fetch", "testdata", "kubelet")

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAILED TO SET UP the veth pair, the real control plane or the fake kubelets: %v\n", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	tn, err := kubelettest.NewTestNet()
	if err != nil {
		return 0, err
	}
	defer tn.Close()
	dir, err := os.MkdirTemp("", "winkube-livenode-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	ca, err := kubelettest.NewCA()
	if err != nil {
		return 0, err
	}
	// The API server's kubelet client certificate, as kubeadm makes it;
	// the fake kubelets verify it against ca and authorize its user.
	certPEM, keyPEM, err := ca.Client("kube-apiserver-kubelet-client", "kubeadm:cluster-admins")
	if err != nil {
		return 0, err
	}
	caFile = filepath.Join(dir, "kubelet-ca.crt")
	for name, b := range map[string][]byte{caFile: ca.PEM, filepath.Join(dir, "client.crt"): certPEM, filepath.Join(dir, "client.key"): keyPEM} {
		if err := os.WriteFile(name, b, 0o600); err != nil {
			return 0, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cp, err = controlplane.Start(ctx, controlplane.Options{NoScheduler: true, AuthorizationMode: "RBAC", ExtraAPIServerFlags: []string{
		"--kubelet-client-certificate=" + filepath.Join(dir, "client.crt"),
		"--kubelet-client-key=" + filepath.Join(dir, "client.key"),
		"--kubelet-certificate-authority=" + caFile,
		"--kubelet-preferred-address-types=InternalIP",
	}})
	if err != nil {
		return 0, fmt.Errorf("starting the control plane (build the binaries with `make controlplane`): %w", err)
	}
	defer cp.Stop()
	cert, err := ca.Serving(tn.KubeletIP)
	if err != nil {
		return 0, err
	}
	logTime = time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Millisecond) // Calico writes milliseconds
	servers, err := startKubelets(ctx, tn.KubeletIP, cert, ca)
	for _, s := range servers {
		defer s.Close()
	}
	if err != nil {
		return 0, err
	}
	if err := applyRBAC(ctx); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// kubelet is one fake node of the scenario.
type kubelet struct {
	name, pool string
	node       *kubelettest.Node
	// memory is the node's capacity and allocatable.
	capacity, allocatable string
}

func file(name string) []byte {
	b, err := os.ReadFile(filepath.Join(bodies, name))
	if err != nil {
		panic(err)
	}
	return b
}

var (
	klogTime   = regexp.MustCompile(`(?m)^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6}`)
	logrusTime = regexp.MustCompile(`time="[^"]+"`)
)

// retime moves every line of a log body to logTime, so that the lines
// fall inside the hour the reader asks for whatever the clock says.
func retime(b []byte) []byte {
	b = klogTime.ReplaceAll(b, []byte("${1}"+logTime.Format("0102 15:04:05.000000")))
	return logrusTime.ReplaceAll(b, []byte(`time="`+logTime.Format(time.RFC3339Nano)+`"`))
}

// calmStats is the stats summary of a node with room to spare.
func calmStats() []byte {
	return []byte(`{"node":{"nodeName":"x","memory":{"time":"2026-11-27T03:58:00Z","availableBytes":10737418240,"workingSetBytes":4294967296},"fs":{"availableBytes":80000000000,"capacityBytes":136365211648},"runtime":{"imageFs":{"availableBytes":80000000000,"capacityBytes":136365211648}}},"pods":[]}`)
}

func scenario() []kubelet {
	good, drifted := file("configz.json"), file("configz-drifted.json")
	return []kubelet{
		// win-1's Antrea agent cannot create its HNS network (antrea-io/antrea
		// v2.7.0 cmd/antrea-agent/main.go, pkg/agent/util/net_windows.go).
		{name: "win-1", pool: "win", node: &kubelettest.Node{Configz: good, Stats: calmStats(), Logs: map[string][]byte{
			"antrea-agent": retime([]byte("F1127 03:58:01.000000    2210 main.go:53] Error running agent: error initializing agent: error creating HNSNetwork: hcnCreateNetwork failed in Win32: The parameter is incorrect. (0x80070057)\n"))}}},
		// win-2's kube-proxy has no source VIP; its Calico Felix finds no HNS
		// network (projectcalico/calico v3.32.1 felix/dataplane/windows).
		{name: "win-2", pool: "win", node: &kubelettest.Node{Configz: good, Stats: calmStats(), Logs: map[string][]byte{
			"kube-proxy":  retime([]byte("E1127 03:58:01.000000    5120 server.go:558] \"Error running ProxyServer\" err=\"source-vip flag not set\"\n")),
			"CalicoFelix": []byte(logTime.Format("2006-01-02 15:04:05.000") + " [WARNING][5324] felix/win_dataplane.go 344: CompleteDeferredWork returned an error - scheduling a retry error=didn't find any HNS networks matching regular expression Calico\n")}}},
		{name: "win-3", pool: "win", node: &kubelettest.Node{Configz: drifted, Stats: calmStats()}},
		// The services of win-4 log to files: the query with options is
		// refused and asked again without them.
		{name: "win-4", pool: "gpu", capacity: "16Gi", allocatable: "14Gi", node: &kubelettest.Node{Configz: good, Stats: file("stats-summary.json"), FileLogs: true, Logs: map[string][]byte{
			"kubelet": retime(file("kubelet.log")), "containerd": retime(file("containerd.log")), "kube-proxy": retime(file("kube-proxy.log")), "flanneld": retime(file("flanneld.log"))}}},
		{name: "win-5", pool: "old", node: &kubelettest.Node{Hang: true}},
		{name: "win-6", pool: "old", node: &kubelettest.Node{Configz: []byte(`{"kubeletconfig": {"cgroupsPerQOS": tru`), Stats: []byte(`<html>502 Bad Gateway</html>`)}},
		// win-7 answers every log query with an endless log.
		{name: "win-7", pool: "big", node: &kubelettest.Node{Configz: good, Stats: calmStats(), HugeLog: 1 << 30}},
	}
}

// startKubelets starts a fake kubelet per scenario node on ip and
// registers the Node with its address and kubelet port, as a kubelet
// does.
func startKubelets(ctx context.Context, ip net.IP, cert tls.Certificate, ca *kubelettest.CA) ([]*kubelettest.Server, error) {
	var servers []*kubelettest.Server
	lin := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "lin-1", Labels: map[string]string{corev1.LabelOSStable: "linux"}}}
	if _, err := cp.CreateNode(ctx, lin); err != nil {
		return nil, err
	}
	for _, k := range scenario() {
		s, err := kubelettest.Start(net.JoinHostPort(ip.String(), "0"), cert, ca.Pool(), k.node, kubelettest.SARAuthorizer(cp.Client, k.name), nil)
		if err != nil {
			return servers, err
		}
		servers = append(servers, s)
		_, port, _ := net.SplitHostPort(s.Addr)
		p, _ := strconv.Atoi(port)
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: k.name, Labels: map[string]string{corev1.LabelOSStable: "windows", "agentpool": k.pool, corev1.LabelWindowsBuild: "10.0.20348"}},
			Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip.String()}},
				DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(p)}},
				NodeInfo:        corev1.NodeSystemInfo{KernelVersion: "10.0.20348.2966", KubeletVersion: "v1.36.3", ContainerRuntimeVersion: "containerd://2.1.4"},
				Capacity:        corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(or(k.capacity, "32Gi")), corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourcePods: resource.MustParse("110")},
				Allocatable:     corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(or(k.allocatable, "29Gi")), corev1.ResourceCPU: resource.MustParse("7500m"), corev1.ResourcePods: resource.MustParse("110")}}}
		if _, err := cp.CreateNode(ctx, n); err != nil {
			return servers, err
		}
	}
	return servers, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
