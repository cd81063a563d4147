package webhook

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// A request body expands while it is decoded: the AdmissionReview, the
// object's node tree, the typed object and, for /mutate, the JSON map the
// patch is built on. TestMemoryAtDeployLimit measured about 14 times the
// body for 3 MiB Pods; 24 leaves room for the collector's slack.
const decodeExpansion = 24

// smallBody is the body size under which requests are not gated: ordinary
// objects are a few KiB, and gating them would only add latency.
const smallBody = 256 << 10

// bodyGate bounds the bytes of request bodies being decoded at once, so
// that concurrent large requests wait for each other instead of taking
// the process past its memory limit. Waiters are served in order.
type bodyGate struct {
	mu      sync.Mutex
	cap     int64
	used    int64
	waiters []*gateWaiter
}

type gateWaiter struct {
	n     int64
	ready chan struct{}
}

// newBodyGate sizes the gate from the memory limit (GOMEMLIMIT, or the
// container's limit through cgroupMemoryLimit) and the largest body: at
// least one largest request always fits.
func newBodyGate(maxBody int64) *bodyGate {
	limit := debug.SetMemoryLimit(-1)
	c := 4 * maxBody // no limit known: still a bound
	if limit != math.MaxInt64 {
		c = max(limit/2/decodeExpansion, maxBody)
	}
	return &bodyGate{cap: c}
}

// acquire waits until n bytes fit, or ctx ends.
func (g *bodyGate) acquire(ctx context.Context, n int64) error {
	n = min(n, g.cap)
	g.mu.Lock()
	if len(g.waiters) == 0 && g.used+n <= g.cap {
		g.used += n
		g.mu.Unlock()
		return nil
	}
	w := &gateWaiter{n: n, ready: make(chan struct{})}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-w.ready: // granted meanwhile: hand it back
			g.used -= w.n
			g.wake()
		default:
			for i, x := range g.waiters {
				if x == w {
					g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
					break
				}
			}
			g.wake()
		}
		return ctx.Err()
	}
}

func (g *bodyGate) release(n int64) {
	n = min(n, g.cap)
	g.mu.Lock()
	g.used -= n
	g.wake()
	g.mu.Unlock()
}

// wake grants waiters in order while they fit; g.mu is held.
func (g *bodyGate) wake() {
	for len(g.waiters) > 0 && g.used+g.waiters[0].n <= g.cap {
		w := g.waiters[0]
		g.waiters = g.waiters[1:]
		g.used += w.n
		close(w.ready)
	}
}

// cgroupMemoryLimit returns the memory limit of the process's container:
// cgroup v2's memory.max, or v1's memory.limit_in_bytes.
func cgroupMemoryLimit() (int64, bool) {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 { // "max", or v1's "no limit"
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// SetMemoryLimit sets the Go runtime's soft memory limit to 80% of the
// container's limit, when GOMEMLIMIT is not set and there is a limit: the
// collector then works harder before the kernel's OOM killer does. It
// returns the limit set, or 0.
func SetMemoryLimit() int64 {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0
	}
	n, ok := cgroupMemoryLimit()
	if !ok {
		return 0
	}
	soft := n / 10 * 8
	debug.SetMemoryLimit(soft)
	return soft
}
