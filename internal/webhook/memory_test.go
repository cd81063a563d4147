package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// deployMemoryLimit is the webhook container's memory limit in
// deploy/webhook.yaml.
const deployMemoryLimit = 256 << 20

// TestMemoryAtDeployLimit sends 16 concurrent requests of 3 MiB (the API
// server's limit) twice, to a server in a child process that runs as the
// deployed one does: GOMEMLIMIT at 80% of 256 MiB. The child's peak
// resident memory (VmHWM) must stay under 256 MiB, where the kubelet would
// kill it. Without the decoding gate it peaks near 750 MiB.
func TestMemoryAtDeployLimit(t *testing.T) {
	if os.Getenv("WINKUBE_MEMORY_CHILD") != "" {
		memoryChild(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryAtDeployLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "WINKUBE_MEMORY_CHILD=1", "GOGC=400") // GOGC as the CLI sets it
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "peak") {
			t.Log(strings.TrimSpace(l))
		}
	}
}

func memoryChild(t *testing.T) {
	debug.SetMemoryLimit(deployMemoryLimit / 10 * 8)
	s, err := New(Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	body := largeReview(t, DefaultMaxRequestBytes-4096)
	for round := range 2 {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for range 16 {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mutate", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"allowed":true`)) {
					errs <- fmt.Errorf("round %d: HTTP %d: %.300s", round, resp.StatusCode, b)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
	peak := vmHWM(t)
	t.Logf("peak resident memory %d MiB for 2x16 concurrent %d KiB requests (limit %d MiB)", peak>>20, len(body)>>10, deployMemoryLimit>>20)
	if peak >= deployMemoryLimit {
		t.Errorf("peak resident memory %d MiB is over the deployment's limit of %d MiB", peak>>20, deployMemoryLimit>>20)
	}
}

// largeReview is a Pod CREATE review of about size bytes: a Windows Pod
// (mutate pins it) whose container has thousands of env entries.
func largeReview(t *testing.T, size int) []byte {
	var env []map[string]string
	n := 0
	for i := 0; n < size-2048; i++ {
		e := map[string]string{"name": "SETTING_" + strconv.Itoa(i), "value": strings.Repeat("v", 64)}
		env = append(env, e)
		n += 100
	}
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "big", "namespace": "shop"},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "mcr.microsoft.com/windows/servercore:ltsc2022", "env": env}}}}
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	rev := fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"name":"big","namespace":"shop","operation":"CREATE","object":%s}}`, raw)
	if len(rev) > DefaultMaxRequestBytes {
		t.Fatalf("review of %d bytes is over the limit", len(rev))
	}
	return []byte(rev)
}

func vmHWM(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
