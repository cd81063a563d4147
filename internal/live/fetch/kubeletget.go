package fetch

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/manifest"
)

// subresource is the nodes subresource the kubelet authorizes a path
// with (kubernetes/kubernetes v1.36.3 pkg/kubelet/server/auth.go,
// GetRequestAttributes).
func subresource(endpoint string) string {
	switch {
	case strings.HasPrefix(endpoint, "/configz"):
		return "configz"
	case strings.HasPrefix(endpoint, "/stats"):
		return "stats"
	case strings.HasPrefix(endpoint, "/logs"):
		return "log"
	}
	return "proxy"
}

// get asks base+endpoint and hands the body to read; every failure,
// including read's, comes back as an Unread naming the endpoint.
func (c *kubeletClient) get(ctx context.Context, base, endpoint string, read func(io.Reader) error) *live.Unread {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return &live.Unread{Endpoint: endpoint, Err: ctx.Err().Error()}
	}
	defer func() { <-c.sem }()
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+endpoint, nil)
	if err != nil {
		return &live.Unread{Endpoint: endpoint, Err: err.Error()}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return &live.Unread{Endpoint: endpoint, Err: c.explain(ctx, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c.refused(endpoint, resp)
	}
	if err := read(resp.Body); err != nil {
		msg := err.Error()
		if ctx.Err() != nil {
			msg = fmt.Sprintf("%s %s: the answer did not end: %v", noAnswer, c.o.Timeout, err)
		}
		return &live.Unread{Endpoint: endpoint, Err: msg}
	}
	return nil
}

// noAnswer starts the message of a request that timed out.
const noAnswer = "no answer within"

// explain turns a transport error into what to do about it.
func (c *kubeletClient) explain(ctx context.Context, err error) string {
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("%s %s", noAnswer, c.o.Timeout)
	case errors.As(err, &unknown), errors.As(err, &invalid), errors.As(err, &host):
		return fmt.Sprintf("cannot verify the kubelet's serving certificate: %v (pass --kubelet-ca with the CA that signed it, enable serverTLSBootstrap, or read through the API server with --node-reads=proxy)", err)
	}
	return err.Error()
}

// refused explains a non-200 answer.
func (c *kubeletClient) refused(endpoint string, resp *http.Response) *live.Unread {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	msg := strings.TrimSpace(string(body))
	if s := apiStatusMessage(body); s != "" {
		msg = s
	}
	u := &live.Unread{Endpoint: endpoint, Err: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, msg)}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		u.Err = fmt.Sprintf("HTTP 401: the kubelet did not accept the credentials (its authentication.webhook must be enabled for service-account tokens): %s", msg)
	case http.StatusForbidden:
		u.Permission = "get nodes/" + subresource(endpoint)
		if c.o.Path == PathProxy {
			u.Permission = "get nodes/proxy"
		}
	case http.StatusNotFound:
		u.Err = fmt.Sprintf("HTTP 404: the kubelet does not serve %s", strings.SplitN(endpoint, "?", 2)[0])
		if strings.HasPrefix(endpoint, "/configz") {
			u.Err += " (enableDebuggingHandlers is false in its configuration)"
		}
	case http.StatusMethodNotAllowed:
		if strings.HasPrefix(endpoint, "/logs") {
			u.Err = fmt.Sprintf("HTTP 405: %s (set enableSystemLogHandler: true and enableSystemLogQuery: true in the kubelet's configuration)", msg)
		}
	}
	return u
}

// apiStatusMessage is the message of an API server Status body, "" when
// body is not one.
func apiStatusMessage(body []byte) string {
	var s struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &s) == nil && s.Kind == "Status" {
		return s.Message
	}
	return ""
}

// readBounded reads all of r, failing past max bytes.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, over, err := manifest.ReadAtMost(r, max)
	if over {
		return nil, fmt.Errorf("the answer is larger than %d bytes; not read", max)
	}
	return b, err
}

// readConfigz reads /configz: {"kubeletconfig": {...}} (configz.New
// ("kubeletconfig") in kubernetes/kubernetes v1.36.3
// cmd/kubelet/app/server.go, initConfigz).
func (c *kubeletClient) readConfigz(ctx context.Context, base string, k *live.Kubelet) {
	u := c.get(ctx, base, "/configz", func(r io.Reader) error {
		b, err := readBounded(r, c.o.MaxBytes)
		if err != nil {
			return err
		}
		var body struct {
			KubeletConfig json.RawMessage `json:"kubeletconfig"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			return fmt.Errorf("malformed /configz answer: %v", err)
		}
		if t := bytes.TrimSpace(body.KubeletConfig); len(t) == 0 || t[0] != '{' {
			return errors.New(`malformed /configz answer: no "kubeletconfig" object`)
		}
		k.Config = body.KubeletConfig
		return nil
	})
	if u != nil {
		k.Unread = append(k.Unread, *u)
	}
}

// summary is the part of the stats summary read (k8s.io/kubelet v0.36.3
// pkg/apis/stats/v1alpha1 types.go: Summary.Node.Memory, .Fs, .Runtime.ImageFs).
type summary struct {
	Node *struct {
		Memory *struct {
			Time            time.Time `json:"time"`
			AvailableBytes  *uint64   `json:"availableBytes"`
			WorkingSetBytes *uint64   `json:"workingSetBytes"`
		} `json:"memory"`
		Fs      *fsStats `json:"fs"`
		Runtime *struct {
			ImageFs *fsStats `json:"imageFs"`
		} `json:"runtime"`
	} `json:"node"`
}

type fsStats struct {
	AvailableBytes *uint64 `json:"availableBytes"`
	CapacityBytes  *uint64 `json:"capacityBytes"`
}

func (c *kubeletClient) readStats(ctx context.Context, base string, k *live.Kubelet) {
	u := c.get(ctx, base, "/stats/summary", func(r io.Reader) error {
		b, err := readBounded(r, c.o.MaxBytes)
		if err != nil {
			return err
		}
		var s summary
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("malformed /stats/summary answer: %v", err)
		}
		if s.Node == nil {
			return errors.New(`malformed /stats/summary answer: no "node"`)
		}
		st := &live.NodeStats{}
		if m := s.Node.Memory; m != nil {
			st.Time, st.MemoryWorkingSetBytes, st.MemoryAvailableBytes = m.Time, m.WorkingSetBytes, m.AvailableBytes
		}
		if f := s.Node.Fs; f != nil {
			st.FsAvailableBytes, st.FsCapacityBytes = f.AvailableBytes, f.CapacityBytes
		}
		if rt := s.Node.Runtime; rt != nil && rt.ImageFs != nil {
			st.ImageFsAvailableBytes, st.ImageFsCapacityBytes = rt.ImageFs.AvailableBytes, rt.ImageFs.CapacityBytes
		}
		k.Stats = st
		return nil
	})
	if u != nil {
		k.Unread = append(k.Unread, *u)
	}
}
