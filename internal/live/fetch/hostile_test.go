package fetch

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winkube/winkube/internal/live/fetch/apiservertest"
)

// TestHostileAPIServers: every way a server can keep a read from ending
// ends it, with an error naming the kind; a server that refuses every
// list yields a snapshot that says so.
func TestHostileAPIServers(t *testing.T) {
	saved := maxPages
	maxPages = 40
	t.Cleanup(func() { maxPages = saved })
	var n atomic.Int64
	for _, tc := range []struct {
		name string
		list http.HandlerFunc
		want string
	}{
		{"repeated continue token", func(w http.ResponseWriter, r *http.Request) { apiservertest.List(w, "same") }, "sent the same continue token again"},
		{"token cycle", func(w http.ResponseWriter, r *http.Request) {
			apiservertest.List(w, []string{"a", "b"}[n.Add(1)%2])
		}, "sent the same continue token again"},
		{"endless pages", func(w http.ResponseWriter, r *http.Request) {
			apiservertest.List(w, fmt.Sprintf("t%d", n.Add(1)))
		}, "more than 40 pages"},
		{"endless body", apiservertest.EndlessNodes, "larger than 128 MiB"},
		{"hung", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, "Client.Timeout"},
		{"slow body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"List","items":[`)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
		}, "Client.Timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := apiservertest.Serve(t, tc.list)
			start := time.Now()
			timeout := time.Second
			if tc.name == "endless body" {
				timeout = 0 // the size bound alone must end it
			}
			_, err := Read(t.Context(), Options{Kubeconfig: kc, AllNamespaces: true, NoEvents: true, QPS: 1e6, Burst: 1e6, RequestTimeout: timeout})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "listing ") {
				t.Errorf("Read: %v, want an error naming the kind with %q", err, tc.want)
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("Read took %s", d)
			}
		})
	}
	t.Run("every list forbidden", func(t *testing.T) {
		kc := apiservertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"forbidden"}`)
		})
		s, err := Read(t.Context(), Options{Kubeconfig: kc, AllNamespaces: true, NoEvents: true, RequestTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		// Every kind the reader lists (13 since NetworkPolicies are read).
		if len(s.Denied) != 13 {
			t.Errorf("%d kinds denied, want all 13: %+v", len(s.Denied), s.Denied)
		}
	})
}
