package controlplane

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/rest"
)

// startScheduler starts kube-scheduler and waits for its /readyz.
func (cp *ControlPlane) startScheduler(ctx context.Context) error {
	if err := cp.spawn("kube-scheduler", filepath.Join(cp.BinDir, "kube-scheduler"), cp.schedulerArgs...); err != nil {
		return err
	}
	// The scheduler serves a self-signed certificate; this is a loopback
	// readiness probe only.
	schedHTTP := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback probe
	return cp.waitFor(ctx, "kube-scheduler /readyz", cp.proc("kube-scheduler"), schedHTTP, readyzCheck(cp.schedulerURL+"/readyz?verbose"))
}

// RestartScheduler kills kube-scheduler and starts it again with the same
// configuration, waiting until it is ready: a scheduler with no state
// carried over (its cache, and nextStartNodeIndex, where the next pod's
// node search starts).
func (cp *ControlPlane) RestartScheduler(ctx context.Context) error {
	p := cp.proc("kube-scheduler")
	if p == nil {
		return fmt.Errorf("controlplane: no kube-scheduler runs in this control plane")
	}
	kill(p.cmd.Process)
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(10 * time.Second):
		return fmt.Errorf("controlplane: kube-scheduler did not exit within 10s of SIGKILL")
	}
	return cp.startScheduler(ctx)
}

// SchedulerMetric reads one sample of kube-scheduler's /metrics: the value
// of the series named name whose labels include every label given as
// key="value" (say `type="pods"`). It authenticates as the admin client;
// the scheduler delegates the check to the API server. A series that is not
// there is an error.
func (cp *ControlPlane) SchedulerMetric(ctx context.Context, name string, labels ...string) (float64, error) {
	if cp.schedulerURL == "" {
		return 0, fmt.Errorf("no kube-scheduler runs in this control plane")
	}
	cfg := rest.CopyConfig(cp.Config)
	// The scheduler serves a self-signed certificate on loopback.
	cfg.TLSClientConfig = rest.TLSClientConfig{Insecure: true, CertData: cfg.CertData, KeyData: cfg.KeyData, CertFile: cfg.CertFile, KeyFile: cfg.KeyFile}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cp.schedulerURL+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("kube-scheduler /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("kube-scheduler /metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		var lbls string
		if strings.HasPrefix(rest, "{") {
			end := strings.Index(rest, "}")
			if end < 0 {
				continue
			}
			lbls, rest = rest[1:end], rest[end+1:]
		} else if !strings.HasPrefix(rest, " ") {
			continue // a longer name with this prefix
		}
		have := strings.Split(lbls, ",")
		if slices.ContainsFunc(labels, func(l string) bool { return !slices.Contains(have, l) }) {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		return strconv.ParseFloat(f[0], 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("kube-scheduler /metrics has no %s{%s}", name, strings.Join(labels, ","))
}

// configureScheduler writes kube-scheduler's configuration (the admin
// kubeconfig, opts' QPS, burst and extra configuration) and its flags for
// startScheduler, on schedPort.
func (cp *ControlPlane) configureScheduler(opts Options, schedPort int) error {
	schedCfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: %g
  burst: %d
leaderElection:
  leaderElect: false
%s`, cp.KubeconfigPath, opts.SchedulerQPS, opts.SchedulerBurst, opts.SchedulerConfigExtra)
	schedCfgPath := filepath.Join(cp.Dir, "kube-scheduler.yaml")
	if err := os.WriteFile(schedCfgPath, []byte(schedCfg), 0o600); err != nil {
		return err
	}
	schedArgs := []string{
		"--config=" + schedCfgPath,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(schedPort),
		"--authentication-kubeconfig=" + cp.KubeconfigPath,
		"--authorization-kubeconfig=" + cp.KubeconfigPath,
	}
	cp.schedulerArgs = append(schedArgs, opts.ExtraSchedulerFlags...)
	cp.schedulerURL = "https://127.0.0.1:" + strconv.Itoa(schedPort)
	return nil
}
