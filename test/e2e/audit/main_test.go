package audit

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/winkube/winkube/test/controlplane"
)

// cp is the control plane every test in the package shares: starting
// one takes seconds, and the scenario is read-only once built.
var cp *controlplane.ControlPlane

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	var err error
	// RBAC instead of the harness's AlwaysAllow, so the ClusterRole is
	// what decides; no scheduler: the scenario binds pods and writes the
	// scheduler's events itself, so nothing moves under the tests.
	cp, err = controlplane.Start(ctx, controlplane.Options{NoScheduler: true, AuthorizationMode: "RBAC"})
	if err == nil {
		err = build(ctx, cp)
	}
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAILED TO START the real control plane or build the scenario (build the binaries with `make controlplane`): %v\n", err)
		if cp != nil {
			cp.Stop()
		}
		os.Exit(1)
	}
	code := m.Run()
	cp.Stop()
	os.Exit(code)
}
