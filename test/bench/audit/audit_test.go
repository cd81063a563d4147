package audit

import (
	"os"
	"os/exec"
	"path/filepath"
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
func BenchmarkAuditLive(b *testing.B) {
	scale := 1.0
	if v := os.Getenv("WINKUBE_BENCH_SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			b.Fatalf("WINKUBE_BENCH_SCALE=%q: want a positive number", v)
		}
		scale = f
	}
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
	if hold := os.Getenv("WINKUBE_BENCH_HOLD"); hold != "" {
		holdCluster(b, cp, hold)
		return
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
	// WINKUBE_BENCH_KUBELETS=N serves N Windows nodes' kubelets and also
	// times audit --node-reads=direct.
	kubelets, _ := strconv.Atoi(os.Getenv("WINKUBE_BENCH_KUBELETS"))
	var kubeletCA string
	var flight *kubelettest.Flight
	if kubelets > 0 {
		kubeletCA, flight = serveKubelets(b, b.Context(), client, kubelets)
	}
	b.Logf("cluster: %d nodes (a third Windows), %d pods, %d events, %d fake kubelets", size.Nodes, size.Pods, size.Events, kubelets)
	b.ResetTimer()
	for range b.N {
		floor := run(b, kubectl, "get", "pods,events", "-A", "-o", "json", "--kubeconfig", cp.KubeconfigPath)
		audit := run(b, bin, "audit", "-A", "-o", "json", "--fail-on", "none", "--kubeconfig", cp.KubeconfigPath)
		doctor := run(b, bin, "doctor", "-A", "-o", "json", "--kubeconfig", cp.KubeconfigPath)
		b.ReportMetric(floor.wall.Seconds(), "kubectl-s")
		b.ReportMetric(audit.wall.Seconds(), "audit-s")
		b.ReportMetric(doctor.wall.Seconds(), "doctor-s")
		b.ReportMetric(float64(audit.rss)/(1<<20), "audit-MiB")
		b.ReportMetric(float64(doctor.rss)/(1<<20), "doctor-MiB")
		b.ReportMetric(float64(floor.rss)/(1<<20), "kubectl-MiB")
		b.ReportMetric(audit.wall.Seconds()/floor.wall.Seconds(), "audit/kubectl")
		if kubelets > 0 {
			withNodes := run(b, bin, "audit", "-A", "-o", "json", "--fail-on", "none", "--kubeconfig", cp.KubeconfigPath, "--node-reads=direct", "--kubelet-ca", kubeletCA)
			b.ReportMetric(withNodes.wall.Seconds(), "audit-node-reads-s")
			b.ReportMetric(withNodes.wall.Seconds()/audit.wall.Seconds(), "node-reads/audit")
			b.ReportMetric(float64(withNodes.rss)/(1<<20), "audit-node-reads-MiB")
			b.ReportMetric(float64(flight.Max()), "kubelet-max-in-flight")
		}
		b.ReportMetric(doctor.wall.Seconds()/floor.wall.Seconds(), "doctor/kubectl")
	}
}

// holdCluster copies the filled cluster's kubeconfig to path and keeps the
// control plane up until that file is removed, for profiling and timing
// commands by hand against the same cluster:
//
//	WINKUBE_BENCH_HOLD=/tmp/bench.kubeconfig hack/bench-audit.sh &
//	winkube doctor -A --kubeconfig /tmp/bench.kubeconfig   # once it exists
//	rm /tmp/bench.kubeconfig                               # to stop
func holdCluster(b *testing.B, cp *controlplane.ControlPlane, path string) {
	data, err := os.ReadFile(cp.KubeconfigPath)
	if err != nil {
		b.Fatal(err)
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
