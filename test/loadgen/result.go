package loadgen

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Result holds the figures of a run.
type Result struct {
	Config  Config
	Elapsed time.Duration // from the first measured request's instant to the last one's dispatch
	// Throughput is the measured requests over the time from the first's
	// instant to the last answer: below the rate when answers fall behind.
	Throughput float64
	Sent       int      // answered or failed: warm-up, measured, and the burst at SIGTERM
	Failed     int      // transport errors, non-200 answers, wrong or mismatched answers
	Samples    []string // the first failures
	// Outcomes counts the answers by kind: allowed, warned, patched, denied.
	Outcomes map[string]int

	P50, P99, Max time.Duration // client side, measured requests
	// ServerP99 is interpolated in the server's histogram over the
	// measured requests; ServerP99Bucket is the upper bound of the bucket
	// it falls in, which the histogram guarantees.
	ServerP99, ServerP99Bucket time.Duration
	ServerCount                int // measured requests the server's histogram saw

	Rotations []rotation
	Straggler Straggler
	InFlight  int           // requests in flight at SIGTERM, the straggler included
	ExitCode  int           // of the server, after SIGTERM
	ExitAfter time.Duration // from SIGTERM to the server's exit, the drain included

	CPUs                 int
	ServerCPU, ClientCPU time.Duration // user and system time of the server and of this process
}

func (r *Result) fill(l *load, srv *server, sd *shutdown, window histogram) {
	r.Sent, r.Failed, r.Samples, r.Outcomes = l.sent, l.failures, l.samples, l.outcomes
	lat := slices.Clone(l.latencies)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if n := len(lat); n > 0 {
		pct := func(q float64) time.Duration { return lat[min(n-1, int(q*float64(n)))] }
		r.P50, r.P99, r.Max = pct(0.50), pct(0.99), lat[n-1]
	}
	r.ServerP99, r.ServerP99Bucket = window.quantile(0.99)
	r.ServerCount = int(window.count())
	r.InFlight, r.ExitCode = sd.InFlight, srv.exitCode
	if sd.Err != "" {
		r.Failed++
		r.Samples = append(r.Samples, "SIGTERM: "+sd.Err)
	}
	r.ExitAfter = srv.exitedAt.Sub(sd.Sent)
	r.CPUs, r.ServerCPU = runtime.NumCPU(), srv.cpu
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		r.ClientCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}

// OK reports whether the run met its bar: no failed request, the
// straggler answered, every rotation seen, a clean exit.
func (r *Result) OK() bool {
	if r.Failed > 0 || !r.Straggler.Answered || r.ExitCode != 0 {
		return false
	}
	for _, rot := range r.Rotations {
		if rot.Err != "" {
			return false
		}
	}
	return true
}

// Write prints the figures.
func (r *Result) Write(w io.Writer) {
	c := r.Config
	rate := float64(c.Requests) / r.Elapsed.Seconds()
	fmt.Fprintf(w, "rate %d/s (sent at %.0f/s, answered at %.0f/s), %d measured requests after %d warm-up, %d keep-alive connections, %d CPUs shared by server and load generator\n",
		c.Rate, rate, r.Throughput, c.Requests, c.Warmup, c.Connections, r.CPUs)
	fmt.Fprintf(w, "  load average     %s at the end\n", loadAverage())
	fmt.Fprintf(w, "  client latency   p50 %s  p99 %s  max %s\n", ms(r.P50), ms(r.P99), ms(r.Max))
	fmt.Fprintf(w, "  server latency   p99 %s (histogram bucket <= %s), %d requests observed\n", ms(r.ServerP99), ms(r.ServerP99Bucket), r.ServerCount)
	fmt.Fprintf(w, "  answers          %s\n", outcomes(r.Outcomes))
	fmt.Fprintf(w, "  failed requests  %d of %d\n", r.Failed, r.Sent)
	for _, s := range r.Samples {
		fmt.Fprintf(w, "    %s\n", s)
	}
	for i, rot := range r.Rotations {
		if rot.Err != "" {
			fmt.Fprintf(w, "  rotation %d       FAILED: %s\n", i+1, rot.Err)
			continue
		}
		fmt.Fprintf(w, "  rotation %d       new certificate served %s after the files were rewritten\n", i+1, ms(rot.Observed))
	}
	straggler := "answered"
	if !r.Straggler.Answered {
		straggler = "FAILED: " + r.Straggler.Err
	}
	fmt.Fprintf(w, "  SIGTERM          %d requests in flight; the one held open across the drain %s; exit code %d after %s (drain %s)\n",
		r.InFlight, straggler, r.ExitCode, ms(r.ExitAfter), c.DrainDelay)
	fmt.Fprintf(w, "  CPU              server %s, load generator %s (whole run)\n", r.ServerCPU.Round(time.Millisecond), r.ClientCPU.Round(time.Millisecond))
}

// loadAverage is the first three fields of /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }

func outcomes(m map[string]int) string {
	var parts []string
	for _, k := range []string{"allowed", "warned", "patched", "denied"} {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
