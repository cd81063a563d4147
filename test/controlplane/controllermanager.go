package controlplane

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// WorkloadControllers are the kube-controller-manager controllers
// [Options.ControllerManager] enables: those that create a workload's pods.
var WorkloadControllers = []string{
	"deployment-controller",
	"replicaset-controller",
	"statefulset-controller",
	"daemonset-controller",
	"job-controller",
}

// startControllerManager starts kube-controller-manager with the
// [WorkloadControllers] only, using the admin kubeconfig for everything
// (no per-controller service accounts, no leader election, no cloud
// provider), serving health on 127.0.0.1:port, and waits until every one
// of those controllers has registered its health check.
func (cp *ControlPlane) startControllerManager(ctx context.Context, port int, extra []string) error {
	args := []string{
		"--kubeconfig=" + cp.KubeconfigPath,
		"--authentication-kubeconfig=" + cp.KubeconfigPath,
		"--authorization-kubeconfig=" + cp.KubeconfigPath,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--leader-elect=false",
		"--use-service-account-credentials=false",
		"--controllers=" + strings.Join(WorkloadControllers, ","),
		// The defaults (20 QPS, burst 30) would throttle a ReplicaSet of
		// 50 pods to seconds; a test wants the pods at once.
		"--kube-api-qps=1000",
		"--kube-api-burst=2000",
		"--profiling=false",
	}
	args = append(args, extra...)
	if err := cp.spawn("kube-controller-manager", filepath.Join(cp.BinDir, "kube-controller-manager"), args...); err != nil {
		return err
	}
	// Each controller adds a health check named after it once it is built
	// and its informers are starting; wait for all of them. The server
	// certificate is self-signed: this is a loopback probe only.
	kcmHTTP := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback probe
	url := "https://127.0.0.1:" + strconv.Itoa(port) + "/healthz?verbose"
	return cp.waitFor(ctx, "kube-controller-manager /healthz with the workload controllers", cp.proc("kube-controller-manager"), kcmHTTP,
		func(c *http.Client) (bool, string) {
			resp, err := c.Get(url)
			if err != nil {
				return false, err.Error()
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				return false, string(body)
			}
			for _, name := range WorkloadControllers {
				if !strings.Contains(string(body), "[+]"+name+" ok") {
					return false, string(body)
				}
			}
			return true, ""
		})
}
