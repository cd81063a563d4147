package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var reviewGVK = admissionv1.SchemeGroupVersion.WithKind("AdmissionReview")

// admissionHandler serves /validate or /mutate.
func (s *server) admissionHandler(endpoint string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		kind, result := "other", resultInvalid
		defer func() {
			s.metrics.requests.WithLabelValues(endpoint, kind, result).Inc()
			s.metrics.duration.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
		}()
		// The body is read before the gate, so a client that sends slowly
		// holds only the bytes it has sent (for at most the connection's
		// read timeout), never the gate that large reviews wait on.
		body, st := s.readBody(w, r)
		if st == nil {
			if n := s.bodyWeight(int64(len(body))); n > 0 {
				if err := s.gate.acquire(r.Context(), n); err != nil {
					return // the client went away while waiting
				}
				defer s.gate.release(n)
			}
		}
		var review *admissionv1.AdmissionReview
		if st == nil {
			review, st = decodeReview(body)
		}
		if st != nil {
			s.log.Info("malformed admission review", "endpoint", endpoint, "remote", r.RemoteAddr, "code", st.Code, "error", st.Message)
			writeStatus(w, st)
			return
		}
		req := review.Request
		kind = kindLabel(req.Kind)
		log := s.log.With("uid", string(req.UID), "endpoint", endpoint, "kind", req.Kind.Kind,
			"namespace", req.Namespace, "name", req.Name, "operation", string(req.Operation))
		d, err := s.safeAdmit(endpoint, req, log)
		var bad badRequest
		switch {
		case errors.As(err, &bad):
			log.Info("malformed admission request", "error", bad.msg)
			writeStatus(w, &metav1.Status{Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: bad.msg})
			return
		case err != nil:
			result = resultError
			writeStatus(w, &metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
				Message: fmt.Sprintf("winkube webhook: internal error checking request %s: %v", req.UID, err)})
			return
		}
		result = d.result
		d.resp.UID = req.UID
		level := slog.LevelDebug
		if d.result == resultDenied || d.result == resultMutated {
			level = slog.LevelInfo
		}
		log.Log(r.Context(), level, "admission", "result", d.result, "why", d.why, "rules", d.rules,
			"warnings", len(d.resp.Warnings), "duration", time.Since(start).String())
		writeJSON(w, http.StatusOK, &admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: reviewGVK.GroupVersion().String(), Kind: reviewGVK.Kind}, Response: d.resp})
	})
}

// errPanic wraps a recovered panic.
type errPanic struct{ v any }

func (e errPanic) Error() string { return fmt.Sprintf("panic: %v", e.v) }

// safeAdmit is admit with panics turned into errors, logged with the
// request's UID and stack.
func (s *server) safeAdmit(endpoint string, req *admissionv1.AdmissionRequest, log *slog.Logger) (d decision, err error) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("panic while checking the request; answering 500 so the failurePolicy applies", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			err = errPanic{v}
		}
	}()
	return s.admit(endpoint, req, log)
}

// bodyWeight is what a body of n bytes counts against the decoding gate:
// its size when large, 0 when small.
func (s *server) bodyWeight(n int64) int64 {
	if n <= smallBody {
		return 0
	}
	return min(n, s.maxBytes)
}

func failure(code int, reason metav1.StatusReason, format string, args ...any) *metav1.Status {
	return &metav1.Status{Code: int32(code), Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// readBody checks an admission request's method, type and size and reads
// its body, or returns the Status to answer instead. The server's
// ReadTimeout bounds how long the read may take.
func (s *server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *metav1.Status) {
	fail := func(code int, reason metav1.StatusReason, format string, args ...any) ([]byte, *metav1.Status) {
		return nil, failure(code, reason, format, args...)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return fail(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed, "%s is not allowed; POST an admission.k8s.io/v1 AdmissionReview", r.Method)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return fail(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, "content type %q is not supported; send application/json", r.Header.Get("Content-Type"))
	}
	if r.ContentLength > s.maxBytes {
		return fail(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, "request body of %d bytes is over the limit of %d bytes", r.ContentLength, s.maxBytes)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return fail(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge, "request body is over the limit of %d bytes", s.maxBytes)
	case err != nil:
		return fail(http.StatusBadRequest, metav1.StatusReasonBadRequest, "reading the request body: %v", err)
	}
	return body, nil
}

// decodeReview decodes and checks an AdmissionReview, or returns the
// Status to answer instead.
func decodeReview(body []byte) (*admissionv1.AdmissionReview, *metav1.Status) {
	fail := func(code int, reason metav1.StatusReason, format string, args ...any) (*admissionv1.AdmissionReview, *metav1.Status) {
		return nil, failure(code, reason, format, args...)
	}
	review := &admissionv1.AdmissionReview{}
	if err := json.Unmarshal(body, review); err != nil {
		return fail(http.StatusBadRequest, metav1.StatusReasonBadRequest, "decoding the AdmissionReview: %v", err)
	}
	switch {
	case review.GroupVersionKind() != reviewGVK:
		return fail(http.StatusBadRequest, metav1.StatusReasonBadRequest, "expected apiVersion admission.k8s.io/v1, kind AdmissionReview; got apiVersion %q, kind %q (register the webhook with admissionReviewVersions: [v1])", review.APIVersion, review.Kind)
	case review.Request == nil:
		return fail(http.StatusBadRequest, metav1.StatusReasonBadRequest, "the AdmissionReview has no request")
	case review.Request.UID == "":
		return fail(http.StatusBadRequest, metav1.StatusReasonBadRequest, "request.uid is missing")
	}
	return review, nil
}

// writeStatus answers with a Status, as the API server's clients decode
// error bodies.
func writeStatus(w http.ResponseWriter, st *metav1.Status) {
	st.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}
	st.Status = metav1.StatusFailure
	writeJSON(w, int(st.Code), st)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}
