package loadgen

import (
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSmoke is a short load run against a real `winkube webhook serve`:
// 200 requests at 200/s with a certificate rotation and SIGTERM at the
// end. Nothing may fail. Latency is reported, never asserted.
func TestSmoke(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "winkube")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/winkube/winkube/cmd/winkube").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var log strings.Builder
	res, err := Run(t.Context(), Config{Binary: bin, WorkDir: dir, Rate: 200, Requests: 200, Warmup: 20, Connections: 4,
		Rotations: 1, DrainDelay: 500 * time.Millisecond, ReloadInterval: 100 * time.Millisecond, ServerLog: &syncWriter{b: &log}})
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	res.Write(&report)
	t.Logf("\n%s", report.String())
	if !res.OK() {
		t.Errorf("the run failed:\n%s\nserver log:\n%s", report.String(), log.String())
	}
	// 20 warm-up, 200 measured, a burst of 8 at SIGTERM.
	if res.Sent != 228 || res.ServerCount != 200 {
		t.Errorf("sent %d (want 228); the server's histogram saw %d requests while the 200 measured ran", res.Sent, res.ServerCount)
	}
	if len(res.Rotations) != 1 || res.Rotations[0].Observed == 0 {
		t.Errorf("rotations %+v, want one seen by a new connection", res.Rotations)
	}
	if res.InFlight < 1 || !res.Straggler.Answered {
		t.Errorf("%d in flight at SIGTERM, straggler %+v; want the straggler in flight and answered", res.InFlight, res.Straggler)
	}
	for _, want := range []string{`"msg":"TLS certificate reloaded"`, `"msg":"shut down: every request in flight was answered"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the server's log lacks %s", want)
		}
	}
	for _, o := range []string{"allowed", "warned", "patched", "denied"} {
		if res.Outcomes[o] == 0 {
			t.Errorf("no %s answers in the mix: %v", o, res.Outcomes)
		}
	}
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	text := `# TYPE winkube_webhook_request_duration_seconds histogram
winkube_webhook_request_duration_seconds_bucket{endpoint="mutate",le="0.001"} 40
winkube_webhook_request_duration_seconds_bucket{endpoint="mutate",le="0.002"} 50
winkube_webhook_request_duration_seconds_bucket{endpoint="mutate",le="+Inf"} 50
winkube_webhook_request_duration_seconds_bucket{endpoint="validate",le="0.001"} 40
winkube_webhook_request_duration_seconds_bucket{endpoint="validate",le="0.002"} 48
winkube_webhook_request_duration_seconds_bucket{endpoint="validate",le="+Inf"} 50
winkube_webhook_request_duration_seconds_count{endpoint="validate"} 50
`
	h, err := parseHistogram(strings.NewReader(text), "winkube_webhook_request_duration_seconds")
	if err != nil {
		t.Fatal(err)
	}
	if h.count() != 100 || h[0.001] != 80 || h[math.Inf(1)] != 100 {
		t.Fatalf("parsed %v", h)
	}
	// p50 is within the first bucket: 50 of its 80, from 0 to 1ms.
	if est, bound := h.quantile(0.5); est != 625*time.Microsecond || bound != time.Millisecond {
		t.Errorf("p50 = %s (bucket %s), want 625µs (1ms)", est, bound)
	}
	// p90 is the 90th of 100: the 10th of the 18 in the 1-2ms bucket.
	if est, bound := h.quantile(0.9); est.Round(time.Microsecond) != 1556*time.Microsecond || bound != 2*time.Millisecond {
		t.Errorf("p90 = %s (bucket %s), want 1.556ms (2ms)", est, bound)
	}
	// p99 falls past the last finite bucket: its bound is all we know.
	if est, bound := h.quantile(0.99); est != 2*time.Millisecond || bound != time.Duration(math.MaxInt64) {
		t.Errorf("p99 = %s (bucket %s), want 2ms (+Inf)", est, bound)
	}
	before := histogram{0.001: 40, 0.002: 45, math.Inf(1): 45}
	if d := h.minus(before); d.count() != 55 || d[0.001] != 40 {
		t.Errorf("minus: %v", d)
	}
}

// syncWriter serialises writes to a strings.Builder.
type syncWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
