package apiservertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Serve starts an API server on 127.0.0.1, stopped when the test ends,
// that answers /version as kube-apiserver v1.36.3 and every other request
// with h. It returns the path of a kubeconfig (a bearer token, the
// context's namespace unset) that points at it.
func Serve(t testing.TB, h http.HandlerFunc) (kubeconfig string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			fmt.Fprint(w, `{"major":"1","minor":"36","gitVersion":"v1.36.3"}`)
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return kubeconfig
}

// List answers a list of any kind with no items and the continue token
// cont ("" for the last page).
func List(w http.ResponseWriter, cont string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"metadata":{"continue":%q},"items":[]}`, cont)
}

// EndlessNodes answers the node list with a body that never ends (items
// until the client hangs up) and every other list with an empty page:
// one endless stream is enough to prove the reader's size bound.
func EndlessNodes(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/nodes" {
		List(w, "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"items":[`)
	item := []byte(strings.Repeat(`{"metadata":{"name":"x"}},`, 4096))
	for r.Context().Err() == nil {
		if _, err := w.Write(item); err != nil {
			return
		}
	}
}
