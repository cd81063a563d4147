package doctor

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDNSFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, nodeOS, msg string
		score             int
		detail            string // substring; "" for no match
	}{
		{"partial on windows", "windows", "Readiness probe failed: Invoke-WebRequest : The remote name could not be resolved: 'backend.shop'", 92,
			`"backend.shop" is partially qualified: a Windows pod resolves names without a dot (through its namespace's suffix) and fully qualified names only; use backend.shop.svc.cluster.local`},
		{"svc suffix on windows", "windows", "curl: (6) Could not resolve host: sql.data.svc", 92, "use sql.data.svc.cluster.local"},
		{"partial on linux", "linux", "Liveness probe failed: Get \"http://backend.shop/\": dial tcp: lookup backend.shop on 10.0.0.10:53: no such host", 75, "on a Windows node it would not resolve either way"},
		{"public name", "windows", "curl: (6) Could not resolve host: example.com", 75, `"example.com" does not resolve`},
		{"fully qualified", "windows", "The remote name could not be resolved: 'backend.shop.svc.cluster.local'", 75, `"backend.shop.svc.cluster.local" does not resolve`},
		{"no name quoted", "windows", "No such host is known.", 75, "No such host is known"},
		{"other failure", "windows", "Readiness probe failed: connection refused", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &podCtx{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}, nodeOS: tt.nodeOS, state: "NotReady",
				evidence: []Evidence{{Source: "event", Reason: "Unhealthy", Message: tt.msg}}}
			h, ok := dnsFailure(c)
			if ok != (tt.detail != "") {
				t.Fatalf("matched = %v", ok)
			}
			if !ok {
				return
			}
			if h.score != tt.score || !strings.Contains(h.detail, tt.detail) {
				t.Errorf("score %d, detail %q; want %d, %q", h.score, h.detail, tt.score, tt.detail)
			}
		})
	}
}

func TestServiceUnreachable(t *testing.T) {
	t.Parallel()
	msg := "Readiness probe failed: Invoke-WebRequest : Unable to connect to the remote server"
	for _, tt := range []struct {
		nodeOS string
		want   bool
	}{{"windows", true}, {"linux", false}} {
		c := &podCtx{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}, nodeOS: tt.nodeOS, state: "NotReady",
			evidence: []Evidence{{Source: "event", Reason: "Unhealthy", Message: msg}}}
		if _, ok := serviceUnreachable(c); ok != tt.want {
			t.Errorf("on %s: matched %v, want %v", tt.nodeOS, ok, tt.want)
		}
	}
}
