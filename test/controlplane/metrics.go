package controlplane

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"
)

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
		ok := true
		for _, l := range labels {
			ok = ok && (lbls == l || strings.HasPrefix(lbls, l+",") || strings.HasSuffix(lbls, ","+l) || strings.Contains(lbls, ","+l+","))
		}
		if !ok {
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
