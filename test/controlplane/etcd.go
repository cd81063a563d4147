package controlplane

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
)

// startEtcd starts etcd on the two ports and waits until it is healthy;
// it returns the client URL.
func (cp *ControlPlane) startEtcd(ctx context.Context, clientPort, peerPort int) (string, error) {
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	if err := cp.spawn("etcd", filepath.Join(cp.BinDir, "etcd"),
		"--name=default",
		"--data-dir="+filepath.Join(cp.Dir, "etcd-data"),
		"--listen-client-urls="+etcdURL,
		"--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	); err != nil {
		return "", err
	}
	etcdHealthy := func(c *http.Client) (bool, string) {
		resp, err := c.Get(etcdURL + "/health")
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode == http.StatusOK && bytes.Contains(body, []byte(`"health":"true"`)), string(body)
	}
	if err := cp.waitFor(ctx, "etcd /health", cp.proc("etcd"), http.DefaultClient, etcdHealthy); err != nil {
		return "", err
	}
	return etcdURL, nil
}
