package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/internal/rule"
)

// status decodes a Status answer.
func status(t *testing.T, b []byte) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(b, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("not a Status (%v): %s", err, b)
	}
	return st
}

// TestMalformed checks that a review the webhook cannot read gets a 4xx
// Status that says what is wrong.
func TestMalformed(t *testing.T) {
	t.Parallel()
	f := start(t, "", func(o *Options) { o.MaxRequestBytes = 4096 })
	good := review(t, object(t, kinds[0], "web", "shop", specLinuxPinned, nil), "")
	tests := []struct {
		name        string
		method      string
		contentType string
		body        []byte
		hideLength  bool // send chunked, so only reading finds the size
		code        int
		message     string
	}{
		{name: "GET", method: "GET", code: 405, message: "GET is not allowed; POST an admission.k8s.io/v1 AdmissionReview"},
		{name: "not JSON", contentType: "text/plain", body: good, code: 415, message: `content type "text/plain" is not supported; send application/json`},
		{name: "broken JSON", body: []byte(`{"apiVersion":`), code: 400, message: "decoding the AdmissionReview: unexpected end of JSON input"},
		{name: "v1beta1", body: bytes.Replace(good, []byte("admission.k8s.io/v1"), []byte("admission.k8s.io/v1beta1"), 1), code: 400,
			message: `expected apiVersion admission.k8s.io/v1, kind AdmissionReview; got apiVersion "admission.k8s.io/v1beta1", kind "AdmissionReview" (register the webhook with admissionReviewVersions: [v1])`},
		{name: "no request", body: []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), code: 400, message: "the AdmissionReview has no request"},
		{name: "no uid", body: modify(t, good, func(r *admissionv1.AdmissionRequest) { r.UID = "" }), code: 400, message: "request.uid is missing"},
		{name: "no object", body: modify(t, good, func(r *admissionv1.AdmissionRequest) { r.Object.Raw = nil }), code: 400, message: "request.object is missing"},
		{name: "object of the wrong shape", body: modify(t, good, func(r *admissionv1.AdmissionRequest) {
			r.Object.Raw = []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"containers":"web"}}`)
		}), code: 400, message: "request.object: spec.containers: expected a list, got string"},
		{name: "UPDATE without the old object", body: modify(t, good, func(r *admissionv1.AdmissionRequest) { r.Operation = admissionv1.Update }),
			code: 400, message: "request.oldObject is missing"},
		{name: "over the size limit", body: append(good, bytes.Repeat([]byte(" "), 4096)...), code: 413,
			message: "request body of " + strconv.Itoa(len(good)+4096) + " bytes is over the limit of 4096 bytes"},
		{name: "over the size limit, chunked", body: append(good, bytes.Repeat([]byte(" "), 4096)...), hideLength: true, code: 413,
			message: "request body is over the limit of 4096 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			method, ct := tc.method, tc.contentType
			if method == "" {
				method = "POST"
			}
			if ct == "" {
				ct = "application/json"
			}
			var body io.Reader = bytes.NewReader(tc.body)
			if tc.hideLength {
				body = io.MultiReader(body)
			}
			req, err := http.NewRequest(method, f.base+"/validate", body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", ct)
			resp, err := f.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			st := status(t, b)
			if resp.StatusCode != tc.code || st.Code != int32(tc.code) || st.Message != tc.message {
				t.Errorf("HTTP %d, Status %d %q; want %d %q", resp.StatusCode, st.Code, st.Message, tc.code, tc.message)
			}
		})
	}
	// The limit leaves room for what fits.
	if r := f.admit("validate", good); !r.Allowed {
		t.Errorf("a review under the limit: %+v", r)
	}
}

// TestPanic checks that a panicking rule is answered with HTTP 500 and a
// Status naming the request UID, logged with the UID, and that the server
// keeps serving.
func TestPanic(t *testing.T) {
	t.Parallel()
	boom := &rule.Rule{ID: "test-panic", Severity: rule.Error, Workload: func(p *rule.Pass) {
		if p.Object.Name == "boom" {
			panic("rule exploded")
		}
	}}
	f := start(t, "", func(o *Options) { o.extraRules = []*rule.Rule{boom} })
	body := review(t, object(t, kinds[1], "boom", "shop", specLinuxPinned, nil), "")
	var in admissionv1.AdmissionReview
	json.Unmarshal(body, &in)
	uid := string(in.Request.UID)

	code, b := f.post("validate", body)
	st := status(t, b)
	want := "winkube webhook: internal error checking request " + uid + ": panic: rule exploded"
	if code != 500 || st.Code != 500 || st.Reason != metav1.StatusReasonInternalError || st.Message != want {
		t.Errorf("HTTP %d, Status %d %s %q; want 500 InternalError %q", code, st.Code, st.Reason, st.Message, want)
	}
	logged := false
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, `"uid":"`+uid+`"`) && strings.Contains(line, `"panic":"rule exploded"`) && strings.Contains(line, `"level":"ERROR"`) {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no ERROR log line with uid %s and the panic:\n%s", uid, f.logs.String())
	}
	if r := f.admit("validate", review(t, object(t, kinds[1], "calm", "shop", specLinuxPinned, nil), "")); !r.Allowed {
		t.Errorf("after the panic: %+v, want allowed", r)
	}
	if m := f.metric(t, MetricRequests+`{endpoint="validate",kind="Deployment",result="error"}`); m != "1" {
		t.Errorf("error requests = %q, want 1", m)
	}
}

// metric reads one sample of /metrics by its name and labels, "" if absent.
func (f *fixture) metric(t *testing.T, series string) string {
	t.Helper()
	resp, err := f.client.Get(f.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}

// TestMetrics checks the counters and the histogram after a few requests.
func TestMetrics(t *testing.T) {
	t.Parallel()
	f := start(t, "", nil)
	pod := kinds[0]
	f.admit("validate", review(t, object(t, pod, "a", "shop", specWindowsRunAsUser, nil), ""))
	f.admit("validate", review(t, object(t, pod, "b", "shop", specWindowsRunAsUser, nil), ""))
	f.admit("mutate", review(t, object(t, pod, "c", "shop", specWindowsUnpinned, nil), ""))
	f.admit("validate", review(t, object(t, pod, "d", "kube-system", specWindowsUnpinned, nil), ""))
	f.admit("validate", review(t, object(t, kinds[3], "e", "shop", specLinuxUnpinned, nil), ""))
	f.post("validate", []byte("{"))
	for series, want := range map[string]string{
		MetricRequests + `{endpoint="validate",kind="Pod",result="denied"}`:       "2",
		MetricRequests + `{endpoint="mutate",kind="Pod",result="mutated"}`:        "1",
		MetricRequests + `{endpoint="validate",kind="Pod",result="skipped"}`:      "1",
		MetricRequests + `{endpoint="validate",kind="DaemonSet",result="warned"}`: "1",
		MetricRequests + `{endpoint="validate",kind="other",result="invalid"}`:    "1",
		MetricDenials + `{rule="windows-forbidden-field"}`:                        "2",
		MetricMutations + `{rule="missing-windows-toleration"}`:                   "1",
		MetricWarnings + `{rule="linux-daemonset-unpinned"}`:                      "1",
		MetricDuration + `_count{endpoint="validate"}`:                            "5",
		MetricDuration + `_bucket{endpoint="validate",le="30"}`:                   "5",
	} {
		if got := f.metric(t, series); got != want {
			t.Errorf("%s = %q, want %s", series, got, want)
		}
	}
	if f.metric(t, MetricDuration+`_bucket{endpoint="validate",le="0.0001"}`) == "" {
		t.Error("no 100µs bucket")
	}
}

// TestProbes checks /healthz and /readyz.
func TestProbes(t *testing.T) {
	t.Parallel()
	f := start(t, "", nil)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := f.client.Get(f.base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "ok\n" {
			t.Errorf("%s: HTTP %d %q, want 200 ok", path, resp.StatusCode, b)
		}
	}
}
