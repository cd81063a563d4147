package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/winkube/winkube/internal/registry/registrytest"
	"github.com/winkube/winkube/internal/report/imagereport"
)

// imagesEnv starts the in-process registry with its fixtures and writes a
// cluster with Windows Server 2019, 2022 and 2025 pools and a Linux pool,
// whose sandbox images come from the registry too.
func imagesEnv(t *testing.T) (refs map[string]string, dir string, flags []string) {
	t.Helper()
	s, err := registrytest.Start()
	if err != nil {
		t.Fatalf("starting the in-process registry: %v", err)
	}
	t.Cleanup(s.Close)
	if refs, err = s.Fixtures(); err != nil {
		t.Fatalf("pushing fixtures: %v", err)
	}
	dir = t.TempDir()
	cfg, err := s.DockerConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	cluster := fmt.Sprintf(`apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- {name: linux, count: 1, os: linux, cpu: "4", memory: 16Gi, sandboxImage: %[1]s}
- {name: ws2019, count: 1, os: windows, windowsBuild: 10.0.17763, cpu: "4", memory: 16Gi, sandboxImage: %[2]s, taints: [{key: os, value: windows, effect: NoSchedule}]}
- {name: ws2022, count: 1, os: windows, windowsBuild: 10.0.20348, cpu: "4", memory: 16Gi, sandboxImage: %[2]s, taints: [{key: os, value: windows, effect: NoSchedule}]}
- {name: ws2025, count: 1, os: windows, windowsBuild: 10.0.26100, cpu: "4", memory: 16Gi, sandboxImage: %[2]s, taints: [{key: os, value: windows, effect: NoSchedule}]}
`, refs["web"], refs["multi"])
	flags = []string{"--cluster", writeFile(t, filepath.Join(dir, "cluster.yaml"), cluster), "--insecure-registry", s.Host, "--registry-cache", filepath.Join(dir, "cache"), "--registry-config", cfg}
	return refs, dir, flags
}

func winPod(name, image string, pin string) string {
	sel := "kubernetes.io/os: windows"
	if pin != "" {
		sel += ", node.kubernetes.io/windows-build: \"" + pin + "\""
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s}
spec:
  nodeSelector: {%s}
  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]
  containers: [{name: c, image: %s, resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: 100m, memory: 128Mi}}}]
`, name, sel, image)
}

func TestImagesCommand(t *testing.T) {
	t.Parallel()
	refs, _, flags := imagesEnv(t)
	input := winPod("orders", refs["orders"], "") + "---\n" + winPod("old", refs["ltsc2019"], "") + "---\n" + winPod("priv", refs["private"], "")
	code, out, stderr := run(t, false, input, append(append([]string{"images", "-o", "json"}, flags...), "-")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s\n%s", code, stderr, out)
	}
	var rep struct {
		Images []imagereport.Row `json:"images"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rep.Images {
		for _, p := range r.Pools {
			got[r.Ref+" on "+p.Pool] = p.Process + " | " + p.HyperV
		}
	}
	want := map[string]string{
		refs["orders"] + " on linux":    "ErrImagePull: no match for platform in manifest: not found | ",
		refs["orders"] + " on ws2019":   "ErrImagePull: no match for platform in manifest: not found | CreateContainerError: The container operating system does not match the host operating system.",
		refs["orders"] + " on ws2022":   "windows/amd64 10.0.20348.2461 | windows/amd64 10.0.20348.2461",
		refs["orders"] + " on ws2025":   "windows/amd64 10.0.20348.2461 | windows/amd64 10.0.20348.2461",
		refs["ltsc2019"] + " on linux":  "ErrImagePull: no match for platform in manifest: not found | ",
		refs["ltsc2019"] + " on ws2019": "windows/amd64 10.0.17763.6414 | windows/amd64 10.0.17763.6414",
		refs["ltsc2019"] + " on ws2022": "ErrImagePull: no match for platform in manifest: not found | windows/amd64 10.0.17763.6414",
		refs["ltsc2019"] + " on ws2025": "ErrImagePull: no match for platform in manifest: not found | windows/amd64 10.0.17763.6414",
		refs["private"] + " on linux":   "ErrImagePull: no match for platform in manifest: not found | ",
		refs["private"] + " on ws2019":  "ErrImagePull: no match for platform in manifest: not found | CreateContainerError: The container operating system does not match the host operating system.",
		refs["private"] + " on ws2022":  "windows/amd64 10.0.20348.2966 | windows/amd64 10.0.20348.2966",
		refs["private"] + " on ws2025":  "windows/amd64 10.0.26100.2605 | windows/amd64 10.0.26100.2605",
		refs["web"] + " on linux":       "linux/amd64 | ",
		refs["multi"] + " on ws2019":    "windows/amd64 10.0.17763.6414 | windows/amd64 10.0.17763.6414",
		refs["multi"] + " on ws2022":    "windows/amd64 10.0.20348.2966 | windows/amd64 10.0.20348.2966",
		refs["multi"] + " on ws2025":    "windows/amd64 10.0.26100.2605 | windows/amd64 10.0.26100.2605",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pulls (-want +got):\n%s", diff)
	}
}

func TestImagesFailures(t *testing.T) {
	t.Parallel()
	refs, _, flags := imagesEnv(t)
	// Without credentials the private repository is refused; a missing
	// tag and a chart are reported too; the sandbox rows still print.
	anon := flags[:len(flags)-2]
	input := winPod("priv", refs["private"], "") + "---\n" + winPod("gone", refs["orders"]+"-gone", "") + "---\n" + winPod("chart", refs["chart"], "")
	code, out, _ := run(t, false, input, append(append([]string{"images"}, anon...), "-")...)
	if code != ExitFindings {
		t.Errorf("exit %d, want %d", code, ExitFindings)
	}
	for _, want := range []string{
		": unauthorized: ", "docker login 127.0.0.1:",
		": not found: ", ": not an image: ", "could not be resolved:",
		"(sandbox)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestLintAndSimulateResolveImages(t *testing.T) {
	t.Parallel()
	refs, _, flags := imagesEnv(t)
	// The ltsc2022-built custom tag on the Windows Server 2025 pool: clean
	// in lint, starts in simulate.
	ok := winPod("orders", refs["orders"], "10.0.26100")
	code, out, stderr := run(t, false, ok, append(append([]string{"lint", "--resolve-images"}, flags...), "-")...)
	if code != 0 {
		t.Errorf("lint: exit %d, want 0\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, false, ok, append(append([]string{"simulate", "--resolve-images"}, flags...), "-")...)
	if code != 0 {
		t.Errorf("simulate: exit %d, want 0\n%s%s", code, out, stderr)
	}
	// The same custom tag pinned to 2019: the registry's os.version decides.
	bad := winPod("orders", refs["orders"], "10.0.17763")
	code, out, _ = run(t, false, bad, append(append([]string{"lint", "--resolve-images"}, flags...), "-")...)
	if code != ExitFindings || !strings.Contains(out, "image-build-mismatch") || !strings.Contains(out, "lists windows/amd64 10.0.20348.2461") {
		t.Errorf("lint of a 2022 image pinned to 2019: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, false, bad, append(append([]string{"simulate", "--resolve-images"}, flags...), "-")...)
	if code != ExitFindings || !strings.Contains(out, "no match for platform in manifest: not found") {
		t.Errorf("simulate of a 2022 image pinned to 2019: exit %d\n%s", code, out)
	}
	// A failure is a finding, and the run goes on.
	code, out, _ = run(t, false, winPod("gone", refs["orders"]+"-gone", ""), append(append([]string{"lint", "--resolve-images"}, flags...), "-")...)
	if code != 0 || !strings.Contains(out, "image-unresolved") {
		t.Errorf("lint of a missing tag: exit %d\n%s", code, out)
	}
}

// TestSandboxImage: a Windows Server 2019 pool whose sandbox image has only
// a 2022 entry cannot start any pod; images and simulate say so.
func TestSandboxImage(t *testing.T) {
	t.Parallel()
	refs, dir, flags := imagesEnv(t)
	cluster := fmt.Sprintf(`apiVersion: winkube.io/v1alpha1
kind: Cluster
pools:
- {name: ws2019, count: 1, os: windows, windowsBuild: 10.0.17763, cpu: "4", memory: 16Gi, sandboxImage: %s}
`, refs["ltsc2022"])
	path := writeFile(t, filepath.Join(dir, "sandbox-cluster.yaml"), cluster)
	flags = append(flags[2:], "--cluster", path)
	code, out, _ := run(t, false, "", append([]string{"images"}, flags...)...)
	if code != ExitFindings || !strings.Contains(out, refs["ltsc2022"]+" (sandbox)  ws2019 (10.0.17763)  ErrImagePull: no match for platform in manifest: not found") {
		t.Errorf("images: exit %d\n%s", code, out)
	}
	pod := strings.Replace(winPod("old", refs["ltsc2019"], ""), "  tolerations: [{key: os, operator: Equal, value: windows, effect: NoSchedule}]\n", "", 1)
	code, out, _ = run(t, false, pod, append(append([]string{"simulate", "--resolve-images"}, flags...), "-")...)
	if code != ExitFindings || !strings.Contains(out, "FailedCreatePodSandBox: failed to get sandbox image \""+refs["ltsc2022"]+"\": failed to pull image") {
		t.Errorf("simulate: exit %d\n%s", code, out)
	}
}
