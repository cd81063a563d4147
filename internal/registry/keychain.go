package registry

import (
	"bytes"
	"fmt"
	"os"

	"github.com/docker/cli/cli/config"
	"github.com/docker/cli/cli/config/configfile"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/winkube/winkube/internal/manifest"
)

// keychain returns the Docker config keychain: $DOCKER_CONFIG/config.json
// or ~/.docker/config.json by default, or the given file, read once per
// run (go-containerregistry's default keychain reads it for every
// request). A registry with no entry is asked anonymously.
func keychain(file string) (authn.Keychain, error) {
	if file == "" {
		cf, err := config.Load(os.Getenv("DOCKER_CONFIG"))
		if err != nil {
			return nil, fmt.Errorf("reading the Docker config: %w (or pass --registry-config FILE)", err)
		}
		return fileKeychain{cf}, nil
	}
	data, err := manifest.ReadFile(file, manifest.MaxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("reading registry config: %w", err)
	}
	cf, err := config.LoadFromReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading registry config %s: %w (want a Docker config.json)", file, err)
	}
	return fileKeychain{cf}, nil
}

// fileKeychain reads one Docker config file, keyed as docker does: the
// repository, then the registry host (Docker Hub as its legacy URL).
type fileKeychain struct{ cf *configfile.ConfigFile }

func (k fileKeychain) Resolve(target authn.Resource) (authn.Authenticator, error) {
	for _, key := range []string{target.String(), target.RegistryStr()} {
		if key == name.DefaultRegistry {
			key = authn.DefaultAuthKey
		}
		cfg, err := k.cf.GetAuthConfig(key)
		if err != nil {
			return nil, err
		}
		if cfg.Username != "" || cfg.Password != "" || cfg.Auth != "" || cfg.IdentityToken != "" || cfg.RegistryToken != "" {
			return authn.FromConfig(authn.AuthConfig{Username: cfg.Username, Password: cfg.Password, Auth: cfg.Auth, IdentityToken: cfg.IdentityToken, RegistryToken: cfg.RegistryToken}), nil
		}
	}
	return authn.Anonymous, nil
}
