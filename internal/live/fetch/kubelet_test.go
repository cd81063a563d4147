package fetch

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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/live/fetch/kubelettest"
)

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "kubelet", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serve starts a fake kubelet per node on 127.0.0.1 (the direct path
// has no loopback rule) and returns the Nodes pointing at them.
func serve(t testing.TB, ca *kubelettest.CA, flight *kubelettest.Flight, nodes map[string]*kubelettest.Node) []*corev1.Node {
	t.Helper()
	cert, err := ca.Serving(net.ParseIP("127.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*corev1.Node
	for name, n := range nodes {
		s, err := kubelettest.Start("127.0.0.1:0", cert, nil, n, nil, flight)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		_, port, _ := net.SplitHostPort(s.Addr)
		p, _ := strconv.Atoi(port)
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelOSStable: "windows"}}}
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
		node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)
		out = append(out, node)
	}
	return out
}

// TestReadKubeletsHostile: every bad answer ends as an Unread of its
// node, in bounded time and memory, and the good node is read whole.
func TestReadKubeletsHostile(t *testing.T) {
	t.Parallel()
	ca, err := kubelettest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string][]byte{"kubelet": testdata(t, "kubelet.log")}
	flight := &kubelettest.Flight{}
	nodes := serve(t, ca, flight, map[string]*kubelettest.Node{
		"good":      {Configz: testdata(t, "configz.json"), Stats: testdata(t, "stats-summary.json"), Logs: logs},
		"forbidden": {Status: map[string]int{"/configz": 403, "/stats": 403, "/logs": 403}},
		"old":       {Status: map[string]int{"/configz": 404, "/logs": 405}, Stats: testdata(t, "stats-summary.json")},
		"hung":      {Hang: true},
		"malformed": {Configz: []byte(`{"kubeletconfig": [1,2`), Stats: []byte(`{"pods": []}`), Logs: logs},
		"huge":      {Configz: []byte(`{"kubeletconfig":{"x":"` + strings.Repeat("y", 2<<20) + `"}}`), HugeLog: 64 << 20},
		"filelogs":  {FileLogs: true, Logs: logs},
	})
	// The sample lines are of 27 November; read them as of that day.
	now := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	o := KubeletOptions{Path: PathDirect, Configz: true, Stats: true, Services: []string{"kubelet", "containerd"}, Since: time.Hour, TailLines: 50,
		Timeout: 500 * time.Millisecond, InFlight: 3, MaxBytes: 1 << 20, LogMaxBytes: 1 << 20, Now: now}
	cfg := &rest.Config{Host: "https://unused.invalid", BearerToken: "token", TLSClientConfig: rest.TLSClientConfig{CAData: ca.PEM}}
	got, access, err := ReadKubelets(t.Context(), cfg, nodes, o)
	if err != nil {
		t.Fatal(err)
	}
	if access.Path != PathDirect || access.Nodes != len(nodes) {
		t.Errorf("access %+v", access)
	}
	if m := flight.Max(); m > 3 {
		t.Errorf("%d requests in flight at once, want at most 3", m)
	}
	by := map[string]*live.Kubelet{}
	for _, k := range got {
		by[k.Node] = k
	}
	good := by["good"]
	if len(good.Unread) != 0 || good.Config == nil || good.Stats == nil || *good.Stats.MemoryWorkingSetBytes != 16911433728 || len(good.Logs) != 3 {
		t.Errorf("good node: unread %v, config %t, stats %+v, %d log lines", good.Unread, good.Config != nil, good.Stats, len(good.Logs))
	}
	if l := good.Logs[1]; l.Service != "kubelet" || !l.Time.Equal(time.Date(2026, 11, 27, 3, 57, 40, 411853000, time.UTC)) {
		t.Errorf("log line %+v", l)
	}
	// A refused log query is not asked again for the next service; a
	// service the node lacks ("log not found for containerd") is no
	// failure.
	want := map[string][]live.Unread{
		"forbidden": {{Endpoint: "/configz", Permission: "get nodes/configz"}, {Endpoint: "/stats/summary", Permission: "get nodes/stats"}, {Endpoint: logsEndpoint(o, "kubelet"), Permission: "get nodes/log"}},
		"old":       {{Endpoint: "/configz", Err: "HTTP 404: the kubelet does not serve /configz (enableDebuggingHandlers is false in its configuration)"}, {Endpoint: logsEndpoint(o, "kubelet")}},
		"hung":      {{Endpoint: "/configz", Err: "no answer within 500ms"}, {Endpoint: "/", Err: "3 more endpoint(s) not asked: the kubelet did not answer in time"}},
		"malformed": {{Endpoint: "/configz"}, {Endpoint: "/stats/summary", Err: `malformed /stats/summary answer: no "node"`}},
		"huge":      {{Endpoint: "/configz", Err: "the answer is larger than 1048576 bytes; not read"}, {Endpoint: "/stats/summary", Err: "HTTP 404: the kubelet does not serve /stats/summary"}, {Endpoint: logsEndpoint(o, "kubelet"), Err: "the log answer is larger than 1048576 bytes; only its first 1048576 bytes were read"}, {Endpoint: logsEndpoint(o, "containerd"), Err: "the log answer is larger than 1048576 bytes; only its first 1048576 bytes were read"}},
		"filelogs":  {{Endpoint: "/configz", Err: "HTTP 404: the kubelet does not serve /configz (enableDebuggingHandlers is false in its configuration)"}, {Endpoint: "/stats/summary", Err: "HTTP 404: the kubelet does not serve /stats/summary"}},
	}
	for name, w := range want {
		k := by[name]
		var gotU []live.Unread
		for _, u := range k.Unread {
			// Messages that quote a body or a parser are checked by prefix.
			if name == "forbidden" || (name == "old" && strings.HasPrefix(u.Endpoint, "/logs")) || (name == "malformed" && u.Endpoint == "/configz") {
				if !strings.Contains(u.Err, "HTTP 4") && !strings.HasPrefix(u.Err, "malformed /configz answer") {
					t.Errorf("%s %s: %q", name, u.Endpoint, u.Err)
				}
				u.Err = ""
			}
			gotU = append(gotU, u)
		}
		if diff := cmp.Diff(w, gotU); diff != "" {
			t.Errorf("%s: unread (-want +got):\n%s", name, diff)
		}
	}
	if huge := by["huge"]; len(huge.Logs) > len(o.Services)*o.TailLines {
		t.Errorf("huge log: %d lines kept, want at most %d a service", len(huge.Logs), o.TailLines)
	}
	if f := by["filelogs"]; len(f.Logs) != 3 {
		t.Errorf("file logs: the query without options was not made or not read: %d lines", len(f.Logs))
	}
	if m := by["malformed"]; len(m.Logs) != 3 {
		t.Errorf("malformed node's logs: %d lines", len(m.Logs))
	}
}

func logsEndpoint(o KubeletOptions, svc string) string {
	return fmt.Sprintf("/logs/?query=%s&sinceTime=%s&tailLines=%d", svc, strings.ReplaceAll(o.Now.Add(-o.Since).UTC().Format(time.RFC3339), ":", "%3A"), o.TailLines)
}

// TestReadKubeletsUntrustedCert: a kubelet whose serving certificate the
// client cannot verify is reported with what to do, not trusted.
func TestReadKubeletsUntrustedCert(t *testing.T) {
	t.Parallel()
	ca, err := kubelettest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	other, err := kubelettest.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	nodes := serve(t, ca, nil, map[string]*kubelettest.Node{"win": {Configz: testdata(t, "configz.json")}})
	cfg := &rest.Config{Host: "https://unused.invalid", BearerToken: "token", TLSClientConfig: rest.TLSClientConfig{CAData: other.PEM}}
	got, _, err := ReadKubelets(context.Background(), cfg, nodes, KubeletOptions{Path: PathDirect, Configz: true})
	if err != nil {
		t.Fatal(err)
	}
	if u := got[0].Unread; len(u) != 1 || !strings.Contains(u[0].Err, "cannot verify the kubelet's serving certificate") || got[0].Config != nil {
		t.Errorf("unread %+v", u)
	}
}

func TestLogTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for line, want := range map[string]time.Time{
		`E1127 03:58:01.123456    4712 kubelet.go:1] "x"`:                                time.Date(2025, 11, 27, 3, 58, 1, 123456000, time.UTC),
		`I0101 23:00:00.5 1 x.go:1] y`:                                                   time.Date(2026, 1, 1, 23, 0, 0, 500000000, time.UTC),
		`time="2026-01-01T10:00:00.1234567Z" level=error msg="x"`:                        time.Date(2026, 1, 1, 10, 0, 0, 123456700, time.UTC),
		`2026-01-01 10:00:00.250 [INFO][1234] felix/daemon.go 400: x`:                    time.Date(2026, 1, 1, 10, 0, 0, 250000000, time.UTC),
		`1/1/2026 3:04:05 PM       1 Information      I0101 15:04:05.000000 1 x.go:1] y`: time.Date(2026, 1, 1, 15, 4, 5, 0, time.UTC),
		`2026-01-01T10:00:00+01:00 something`:                                            time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC),
		`W0101 10:00:00.1234567891 more digits than klog writes`:                         time.Date(2026, 1, 1, 10, 0, 0, 123456789, time.UTC),
	} {
		got, ok := LogTime(line, now)
		if !ok || !got.Equal(want) {
			t.Errorf("LogTime(%q) = %v, %t; want %v", line, got, ok, want)
		}
	}
	// Lines that look like a klog header but are not one.
	for _, line := range []string{"no time here", "I1127 03:58:0x.123456 x", "X1127 03:58:01.123456 x", "I1127 03:58:01. x", "I1127 03:58:01", "I1127T03:58:01.123456 x"} {
		if got, ok := LogTime(line, now); ok {
			t.Errorf("LogTime(%q) = %v; want no time", line, got)
		}
	}
}
