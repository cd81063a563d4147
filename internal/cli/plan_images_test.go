package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/registry/registrytest"
)

// TestPlanResolveImages: moving the Windows pool back to Windows Server
// 2019 breaks two ltsc2022 images; with --resolve-images the images step
// names the ltsc2019 tag the registry has, and says of the other that no
// such tag exists, so it must be rebuilt.
func TestPlanResolveImages(t *testing.T) {
	t.Parallel()
	s, err := registrytest.Start()
	if err != nil {
		t.Fatalf("starting the in-process registry: %v", err)
	}
	t.Cleanup(s.Close)
	for ref, build := range map[string]string{
		"shop/app:1.0-ltsc2022": "10.0.20348.2849", "shop/app:1.0-ltsc2019": "10.0.17763.6532",
		"shop/other:2.0-ltsc2022": "10.0.20348.2849",
	} {
		if _, err := s.PushImage(ref, registrytest.Windows(build), 1); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	var docs []string
	for _, name := range []string{"app", "other"} {
		tag := map[string]string{"app": "1.0-ltsc2022", "other": "2.0-ltsc2022"}[name]
		docs = append(docs, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      os: {name: windows}
      nodeSelector: {kubernetes.io/os: windows}
      tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
      containers: [{name: c, image: %[2]s/shop/%[1]s:%[3]s, resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: 100m, memory: 128Mi}}}]
`, name, s.Host, tag))
	}
	work := writeFile(t, filepath.Join(dir, "work.yaml"), strings.Join(docs, "---\n"))
	code, out, errOut := runPlan(t, "--cluster", "../plan/testdata/cluster.yaml", "--set-pool", "win:build=ltsc2019", "--resolve-images",
		"--insecure-registry", s.Host, "--registry-cache", filepath.Join(dir, "cache"), work)
	for _, want := range []string{
		"Rebuild or retag 2 image(s) for Windows Server 2019 (10.0.17763)",
		s.Host + "/shop/app:1.0-ltsc2022 -> " + s.Host + "/shop/app:1.0-ltsc2019 (in the registry, with an entry for 10.0.17763) (Deployment/shop/app)",
		s.Host + "/shop/other:2.0-ltsc2022 -> " + s.Host + "/shop/other:2.0-ltsc2019 (not in the registry: rebuild and push it) (Deployment/shop/other)",
		"[ErrImagePull] ErrImagePull: container \"c\": failed to pull image",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != ExitFindings || t.Failed() {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}
