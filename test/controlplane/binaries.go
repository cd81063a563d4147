package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ensureBinaries returns a directory holding etcd, kube-apiserver and
// kube-scheduler (and kube-controller-manager when withControllerManager),
// building them into the cache if needed.
func ensureBinaries(ctx context.Context, binDir string, withControllerManager bool) (string, error) {
	names := []string{"etcd", "kube-apiserver", "kube-scheduler"}
	if withControllerManager {
		names = append(names, "kube-controller-manager")
	}
	missing := func(dir string) []string {
		var m []string
		for _, n := range names {
			if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
				m = append(m, n)
			}
		}
		return m
	}
	explicit, source := binDir, "Options.BinDir"
	if explicit == "" {
		explicit, source = os.Getenv(EnvBinDir), "$"+EnvBinDir
	}
	if explicit != "" {
		if m := missing(explicit); len(m) > 0 {
			return "", fmt.Errorf("controlplane: %s=%s lacks %s", source, explicit, strings.Join(m, ", "))
		}
		return explicit, nil
	}

	cache := os.Getenv("WINKUBE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("controlplane: no WINKUBE_CACHE and no home directory: %w", err)
		}
		cache = filepath.Join(home, ".cache", "winkube")
	}
	cached := filepath.Join(cache, "controlplane", KubernetesVersion, "bin")
	if len(missing(cached)) == 0 {
		return cached, nil
	}

	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("controlplane: binaries missing from %s and cannot find the build script: %w", cached, err)
	}
	script := filepath.Join(root, "hack", "build-controlplane.sh")
	fmt.Fprintf(os.Stderr, "controlplane: binaries missing from %s; running %s (a cold build takes several minutes)\n", cached, script)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = root
	cmd.Stdout = &stdout
	cmd.Stderr = io.MultiWriter(os.Stderr, &stderr)
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("controlplane: %s failed: %v\n--- tail of its stderr ---\n%s",
			script, err, tailLines(stderr.String(), 40))
	}
	out := strings.Fields(stdout.String())
	if len(out) == 0 {
		return "", fmt.Errorf("controlplane: %s printed no bin directory", script)
	}
	dir := out[len(out)-1]
	if m := missing(dir); len(m) > 0 {
		return "", fmt.Errorf("controlplane: %s succeeded but %s lacks %s", script, dir, strings.Join(m, ", "))
	}
	return dir, nil
}

// moduleRoot walks up from the working directory (a package directory when
// run by go test) to the directory with go.mod and hack/build-controlplane.sh.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		if fileExists(filepath.Join(d, "go.mod")) && fileExists(filepath.Join(d, "hack", "build-controlplane.sh")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod with hack/build-controlplane.sh above %s", dir)
		}
		d = parent
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// writePKI writes apiserver.crt/.key (signed by a fresh CA, valid for
// 127.0.0.1 and localhost) and the service-account RSA key pair sa.key/sa.pub
// into dir, and returns the CA certificate PEM.
