package webhook

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkHandler measures one admission request through the handler,
// without TLS or the network, for objects that take each path.
//
//	go test ./internal/webhook -run '^$' -bench Handler -benchmem
func BenchmarkHandler(b *testing.B) {
	s, err := New(Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	t := &testing.T{} // the fixture helpers only report through it
	for _, c := range []struct {
		name, endpoint, spec string
		k                    kind
	}{
		{"pod/clean/validate", "validate", specLinuxPinned, kinds[0]},
		{"pod/clean/mutate", "mutate", specLinuxPinned, kinds[0]},
		{"pod/forbidden-field/validate", "validate", specWindowsRunAsUser, kinds[0]},
		{"pod/windows-unpinned/mutate", "mutate", specWindowsUnpinned, kinds[0]},
		{"deployment/clean/validate", "validate", specLinuxPinned, kinds[1]},
		{"cronjob/windows-unpinned/mutate", "mutate", specWindowsUnpinned, kinds[6]},
	} {
		body := review(t, object(t, c.k, "web", "shop", c.spec, nil), "")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				r := httptest.NewRequest(http.MethodPost, "/"+c.endpoint, bytes.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("HTTP %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}

// FuzzReview sends arbitrary bodies through the handler: a malformed
// review is a 4xx, never a panic (which would be a 500).
//
//	go test ./internal/webhook -run '^$' -fuzz FuzzReview -fuzztime 1m
func FuzzReview(f *testing.F) {
	s, err := New(Options{Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	h := s.Handler()
	t := &testing.T{}
	for _, k := range kinds {
		for _, spec := range []string{specWindowsRunAsUser, specWindowsUnpinned, specLinuxUnpinned} {
			f.Add(review(t, object(t, k, "web", "shop", spec, nil), ""))
		}
	}
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"version":"v1","kind":"Pod"},"operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","spec":null}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, endpoint := range []string{"/validate", "/mutate"} {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			h.ServeHTTP(w, r)
			if w.Code >= 500 {
				t.Fatalf("%s: HTTP %d: %s", endpoint, w.Code, w.Body)
			}
		}
	})
}
