package registrytest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Credentials of the private repositories (under private/).
const (
	User     = "winkube"
	Password = "s3cret"
	token    = "token-for-private"
)

// Server is an in-process registry with the token flow of Docker Hub:
// the /v2/ ping answers 401 with a Bearer challenge, /token hands out
// tokens, and repositories under private/ need the token that /token gives
// only for User and Password.
type Server struct {
	*httptest.Server
	Host     string       // 127.0.0.1:port
	Requests atomic.Int64 // requests under /v2/ (pings aside)
}

// Start starts a registry on 127.0.0.1; Close it when done.
func Start() (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	s := &Server{}
	reg := registry.New(registry.Logger(nopLogger()))
	s.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: s.handler(reg)}}
	s.Server.Start()
	s.Host = strings.TrimPrefix(s.URL, "http://")
	return s, nil
}

func (s *Server) handler(reg http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/token":
			s.token(w, r)
			return
		case r.URL.Path == "/v2/" && r.Header.Get("Authorization") == "":
			// Like Docker Hub, the ping asks for a token; clients then
			// fetch one per repository scope.
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="%s"`, s.URL, s.Host))
			writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
			return
		case strings.HasPrefix(r.URL.Path, "/v2/private/"):
			if r.Header.Get("Authorization") != "Bearer "+token {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="%s/token",service="%s",scope="repository:%s:pull"`, s.URL, s.Host, repoOf(r.URL.Path)))
				writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
				return
			}
		}
		if r.URL.Path != "/v2/" {
			s.Requests.Add(1)
		}
		reg.ServeHTTP(w, r)
	})
}

// token is the registry's token endpoint: a token for private scopes only
// with the right basic credentials.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Query().Get("scope"), ":private/") {
		if u, p, ok := r.BasicAuth(); !ok || u != User || p != Password {
			writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
			return
		}
	}
	json.NewEncoder(w).Encode(map[string]string{"token": token, "access_token": token})
}

func repoOf(path string) string {
	p := strings.TrimPrefix(path, "/v2/")
	for _, sep := range []string{"/manifests/", "/blobs/", "/tags/"} {
		if i := strings.Index(p, sep); i >= 0 {
			return p[:i]
		}
	}
	return p
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"errors":[{"code":%q,"message":%q}]}`, code, msg)
}

// DockerConfig writes a Docker config.json with the private credentials
// for this registry into dir and returns its path.
func (s *Server) DockerConfig(dir string) (string, error) {
	auth := base64.StdEncoding.EncodeToString([]byte(User + ":" + Password))
	b, _ := json.Marshal(map[string]any{"auths": map[string]any{s.Host: map[string]string{"auth": auth}}})
	path := filepath.Join(dir, "config.json")
	return path, os.WriteFile(path, b, 0o600)
}
