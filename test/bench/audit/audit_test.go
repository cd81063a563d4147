package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/winkube/winkube/internal/live/fetch/kubelettest"
	"github.com/winkube/winkube/test/controlplane"
)

// BenchmarkAuditLive fills a real kube-apiserver with the cluster
// (scaled by $WINKUBE_BENCH_SCALE, default 1) and times, as separate
// processes in the same run, `kubectl get pods,events -A -o json` (the
// floor: what reading the same objects costs), `winkube audit -A -o
// json` and `winkube doctor -A -o json`, with each one's peak RSS.
//
// With $WINKUBE_BENCH_KUBELETS=N it also serves N Windows nodes' kubelets
// and times `winkube audit --node-reads=direct` against plain audit in
// $WINKUBE_BENCH_ROUNDS rounds (default 6) whose order alternates (plain
// first in even rounds, node reads first in odd ones), so that neither
// side always runs on the heels of the other's load; it reports the
// medians of each and the median ratio of each order.
//
// $WINKUBE_BENCH_CLUSTER=FILE times against a cluster another run holds
// ($WINKUBE_BENCH_HOLD=FILE, below) instead of filling one: the
// kubeconfig FILE, the kubelets' CA FILE.kubelet-ca. $WINKUBE_BENCH_AUDIT_ONLY=1
// leaves kubectl and doctor out.
func BenchmarkAuditLive(b *testing.B) {
	scale := 1.0
	if v := os.Getenv("WINKUBE_BENCH_SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			b.Fatalf("WINKUBE_BENCH_SCALE=%q: want a positive number", v)
		}
		scale = f
	}
	// WINKUBE_BENCH_KUBELETS=N serves N Windows nodes' kubelets and also
	// times audit --node-reads=direct.
	kubelets, _ := strconv.Atoi(os.Getenv("WINKUBE_BENCH_KUBELETS"))
	rounds := 6
	if v := os.Getenv("WINKUBE_BENCH_ROUNDS"); v != "" {
		r, err := strconv.Atoi(v)
		if err != nil || r < 1 {
			b.Fatalf("WINKUBE_BENCH_ROUNDS=%q: want a positive whole number", v)
		}
		rounds = r
	}
	var kubeconfig, kubeletCA string
	var flight *kubelettest.Flight
	if held := os.Getenv("WINKUBE_BENCH_CLUSTER"); held != "" {
		kubeconfig, kubeletCA = held, held+".kubelet-ca"
		if _, err := os.Stat(kubeconfig); err != nil {
			b.Fatalf("WINKUBE_BENCH_CLUSTER: %v (start a held cluster with WINKUBE_BENCH_HOLD)", err)
		}
		if _, err := os.Stat(kubeletCA); kubelets > 0 && err != nil {
			b.Fatalf("WINKUBE_BENCH_CLUSTER: %v (hold the cluster with WINKUBE_BENCH_KUBELETS set)", err)
		}
		b.Logf("timing the held cluster of %s (%d fake kubelets)", kubeconfig, kubelets)
	} else {
		size := Scaled(scale)
		cp := controlplane.StartT(b, controlplane.Options{NoScheduler: true, ExtraAPIServerFlags: []string{"--max-requests-inflight=800", "--max-mutating-requests-inflight=400"}})
		cfg := rest.CopyConfig(cp.Config)
		cfg.QPS, cfg.Burst = 20000, 40000
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := Populate(b.Context(), cp, client, size, b.Logf); err != nil {
			b.Fatal(err)
		}
		if kubelets > 0 {
			kubeletCA, flight = serveKubelets(b, b.Context(), client, kubelets)
		}
		b.Logf("cluster: %d nodes (a third Windows), %d pods, %d events, %d fake kubelets", size.Nodes, size.Pods, size.Events, kubelets)
		if hold := os.Getenv("WINKUBE_BENCH_HOLD"); hold != "" {
			holdCluster(b, cp, hold, kubeletCA, flight)
			return
		}
		kubeconfig = cp.KubeconfigPath
	}
	bin := filepath.Join(b.TempDir(), "winkube")
	build := exec.Command("go", "build", "-o", bin, "./cmd/winkube")
	build.Dir = filepath.Join("..", "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building winkube: %v\n%s", err, out)
	}
	kubectl := "/usr/bin/kubectl"
	if p := os.Getenv("KUBECTL"); p != "" {
		kubectl = p
	}
	auditOnly := os.Getenv("WINKUBE_BENCH_AUDIT_ONLY") == "1"
	plainArgs := []string{"audit", "-A", "-o", "json", "--fail-on", "none", "--kubeconfig", kubeconfig}
	readsArgs := append(append([]string(nil), plainArgs...), "--node-reads=direct", "--kubelet-ca", kubeletCA)
	b.ResetTimer()
	for range b.N {
		if !auditOnly {
			floor := run(b, kubectl, "get", "pods,events", "-A", "-o", "json", "--kubeconfig", kubeconfig)
			doctor := run(b, bin, "doctor", "-A", "-o", "json", "--kubeconfig", kubeconfig)
			b.ReportMetric(floor.wall.Seconds(), "kubectl-s")
			b.ReportMetric(doctor.wall.Seconds(), "doctor-s")
			b.ReportMetric(float64(doctor.rss)/(1<<20), "doctor-MiB")
			b.ReportMetric(float64(floor.rss)/(1<<20), "kubectl-MiB")
			b.ReportMetric(doctor.wall.Seconds()/floor.wall.Seconds(), "doctor/kubectl")
		}
		if kubelets == 0 {
			audit := run(b, bin, plainArgs...)
			b.ReportMetric(audit.wall.Seconds(), "audit-s")
			b.ReportMetric(float64(audit.rss)/(1<<20), "audit-MiB")
			continue
		}
		var plain, reads []measure
		var ratios [2][]float64 // [0] plain first, [1] node reads first
		for r := range rounds {
			var p, n measure
			if r%2 == 0 {
				p, n = run(b, bin, plainArgs...), run(b, bin, readsArgs...)
			} else {
				n, p = run(b, bin, readsArgs...), run(b, bin, plainArgs...)
			}
			plain, reads = append(plain, p), append(reads, n)
			ratios[r%2] = append(ratios[r%2], n.wall.Seconds()/p.wall.Seconds())
			b.Logf("round %d (%s first): audit %.2f s %d MiB, audit --node-reads=direct %.2f s %d MiB, ratio %.2f",
				r+1, map[bool]string{true: "plain", false: "node reads"}[r%2 == 0], p.wall.Seconds(), p.rss>>20, n.wall.Seconds(), n.rss>>20, n.wall.Seconds()/p.wall.Seconds())
		}
		mp, mn := medianWall(plain), medianWall(reads)
		b.ReportMetric(mp, "audit-s")
		b.ReportMetric(mn, "audit-node-reads-s")
		b.ReportMetric(mn/mp, "node-reads/audit")
		b.ReportMetric(median(ratios[0]), "ratio-plain-first")
		if len(ratios[1]) > 0 {
			b.ReportMetric(median(ratios[1]), "ratio-reads-first")
		}
		b.ReportMetric(maxRSS(plain), "audit-MiB")
		b.ReportMetric(maxRSS(reads), "audit-node-reads-MiB")
		if flight != nil {
			b.ReportMetric(float64(flight.Max()), "kubelet-max-in-flight")
		}
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianWall(ms []measure) float64 {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = m.wall.Seconds()
	}
	return median(v)
}

func maxRSS(ms []measure) float64 {
	var m int64
	for _, x := range ms {
		m = max(m, x.rss)
	}
	return float64(m) / (1 << 20)
}

// holdCluster copies the filled cluster's kubeconfig to path and keeps the
// control plane up until that file is removed, for profiling and timing
// commands by hand against the same cluster:
//
//	WINKUBE_BENCH_HOLD=/tmp/bench.kubeconfig hack/bench-audit.sh &
//	winkube doctor -A --kubeconfig /tmp/bench.kubeconfig   # once it exists
//	rm /tmp/bench.kubeconfig                               # to stop
//
// With fake kubelets served, their CA is copied to path.kubelet-ca and
// the most kubelet requests seen in flight during the hold is logged at
// its end.
func holdCluster(b *testing.B, cp *controlplane.ControlPlane, path, kubeletCA string, flight *kubelettest.Flight) {
	data, err := os.ReadFile(cp.KubeconfigPath)
	if err != nil {
		b.Fatal(err)
	}
	if kubeletCA != "" {
		ca, err := os.ReadFile(kubeletCA)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path+".kubelet-ca", ca, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	if flight != nil {
		defer func() { b.Logf("most kubelet requests in flight during the hold: %d", flight.Max()) }()
	}
	if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		b.Fatal(err)
	}
	b.Logf("cluster held: kubeconfig at %s; remove it to stop", path)
	for {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return
		}
		select {
		case <-b.Context().Done():
			return
		case <-time.After(time.Second):
		}
	}
}

type measure struct {
	wall time.Duration
	rss  int64 // bytes
}

// run runs a command with its output discarded and returns its wall time
// and peak resident set size.
func run(b *testing.B, name string, args ...string) measure {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdout = nil // /dev/null
	errf, err := os.CreateTemp(b.TempDir(), "stderr")
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = errf
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || filepath.Base(name) != "winkube" {
			out, _ := os.ReadFile(errf.Name())
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return measure{wall, rss}
}
