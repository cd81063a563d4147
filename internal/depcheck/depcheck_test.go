package depcheck

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// heavy maps a module prefix to the only packages allowed to import it
// (directly or not). Tests are not counted: go list reports the packages'
// own builds. internal/docs walks the command tree, so it sees what the
// CLI sees. client-go is read by internal/live/fetch alone; the CLI, which
// runs audit and doctor, links it through fetch (clientcmd brings pflag),
// while internal/live, audit and doctor work on typed objects only.
//
// internal/nodeconfig decodes with the kubelet's and kube-proxy's own
// config types, which embed component-base's logging and tracing
// configuration; component-base registers flags and metrics, so cobra,
// pflag and prometheus come along. Only nodeconfig may pay that, and
// internal/catalogue, which lists nodeconfig's rules beside the others for
// the CLI and the docs generator.
// component-base/config alone is plain types (kube-scheduler's
// configuration embeds them; simulate reads --scheduler-config with it),
// so it is exempt.
var heavy = map[string][]string{
	"github.com/spf13/cobra":        {"internal/cli", "internal/docs", "cmd/", "internal/nodeconfig", "internal/catalogue"},
	"github.com/spf13/pflag":        {"internal/cli", "internal/docs", "cmd/", "internal/live/fetch", "internal/nodeconfig", "internal/catalogue"},
	"k8s.io/client-go":              {"test/", "internal/live/fetch", "internal/cli", "internal/docs", "cmd/", "internal/chart", "internal/inputs"},
	"github.com/prometheus/":        {"internal/webhook", "internal/cli", "internal/docs", "cmd/", "test/loadgen", "hack/loadgen", "internal/nodeconfig", "internal/catalogue"},
	"k8s.io/kubelet":                {"internal/nodeconfig", "internal/cli", "internal/docs", "cmd/", "test/e2e/nodeconfig", "internal/catalogue"},
	"k8s.io/kube-proxy":             {"internal/nodeconfig", "internal/cli", "internal/docs", "cmd/", "test/e2e/nodeconfig", "internal/catalogue"},
	"k8s.io/component-base":         {"internal/nodeconfig", "internal/cli", "internal/docs", "cmd/", "test/", "internal/catalogue"},
	"github.com/pelletier/go-toml":  {"internal/nodeconfig", "internal/cli", "internal/docs", "cmd/", "test/e2e/nodeconfig", "internal/catalogue"},
	"go.opentelemetry.io/":          {"internal/nodeconfig", "internal/cli", "internal/docs", "cmd/", "test/", "internal/catalogue"},
	"github.com/santhosh-tekuri/":   {"internal/chart", "internal/inputs", "internal/cli", "internal/docs", "cmd/"},
	"github.com/pmezard/go-difflib": {"internal/report/fixreport", "internal/cli", "internal/docs", "cmd/", "internal/nodeconfig", "internal/catalogue"},
	"k8s.io/kubernetes":             {},
	// Registries are spoken to in one package; the CLI wires it in.
	"github.com/google/go-containerregistry": {"internal/registry", "internal/cli", "internal/docs", "cmd/", "hack/imagebench"},
	"github.com/docker/cli":                  {"internal/registry", "internal/cli", "internal/docs", "cmd/", "hack/imagebench"},
	// Inputs where users keep them: Helm renders in internal/chart,
	// kustomize builds in internal/kustomize, HCL parses in
	// internal/cloudprofile; internal/inputs and the CLI wire them in, and
	// manifest, engine and the webhook stay free of them. Helm brings two
	// more, allowed above for the renderer only: client-go (pkg/engine's
	// lookup function, which returns nothing without a cluster as in helm
	// template; pkg/chartutil's default .Capabilities.APIVersions read
	// client-go's scheme) and santhosh-tekuri/jsonschema (values.schema.json).
	"helm.sh/helm/":             {"internal/chart", "internal/inputs", "internal/cli", "internal/docs", "cmd/"},
	"sigs.k8s.io/kustomize/":    {"internal/kustomize", "internal/inputs", "internal/cli", "internal/docs", "cmd/"},
	"github.com/hashicorp/hcl/": {"internal/cloudprofile", "internal/inputs", "internal/cli", "internal/docs", "cmd/"},
	"github.com/zclconf/go-cty": {"internal/cloudprofile", "internal/inputs", "internal/cli", "internal/docs", "cmd/"},
}

const module = "github.com/winkube/winkube/"

func TestHeavyDependenciesStayOut(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(fields[0], module)
		for _, dep := range fields[1:] {
			for prefix, allowed := range heavy {
				if dep == "k8s.io/component-base/config" || dep == "k8s.io/component-base/config/v1alpha1" {
					continue
				}
				if strings.HasPrefix(dep, prefix) && !allowedIn(pkg, allowed) {
					t.Errorf("%s depends on %s; only %v may", pkg, dep, allowed)
				}
			}
		}
	}
}

func allowedIn(pkg string, allowed []string) bool {
	for _, a := range allowed {
		if pkg == a || strings.HasPrefix(pkg, strings.TrimSuffix(a, "/")+"/") || (strings.HasSuffix(a, "/") && strings.HasPrefix(pkg, a)) {
			return true
		}
	}
	return false
}

var requireRE = regexp.MustCompile(`(?m)^\s*(k8s\.io/[a-z-]+)\s+(v\S+)`)

// TestKubernetesVersionsAgree keeps the k8s.io libraries at the release of
// the control plane the fidelity and end-to-end tests run against.
func TestKubernetesVersionsAgree(t *testing.T) {
	t.Parallel()
	harness, err := os.ReadFile(filepath.Join("..", "..", "hack", "controlplane", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`k8s\.io/kubernetes\s+v1\.(\d+\.\d+)`).FindSubmatch(harness)
	if m == nil {
		t.Fatal("hack/controlplane/go.mod does not require k8s.io/kubernetes")
	}
	want := "v0." + string(m[1])
	gomod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]bool{"k8s.io/api": true, "k8s.io/apimachinery": true, "k8s.io/client-go": true, "k8s.io/component-helpers": true,
		"k8s.io/kubelet": true, "k8s.io/kube-proxy": true}
	for _, r := range requireRE.FindAllSubmatch(gomod, -1) {
		if pinned[string(r[1])] && string(r[2]) != want {
			t.Errorf("go.mod requires %s %s; the control plane is v1.%s, so it must be %s", r[1], r[2], m[1], want)
		}
		delete(pinned, string(r[1]))
	}
	for mod := range pinned {
		t.Errorf("go.mod does not require %s", mod)
	}
}

// TestRenderersInReport: HTML and SARIF are written under internal/report
// alone (report and its subpackages: simreport, auditreport, doctorreport,
// imagereport, fixreport), and doctor reaches the live cluster through
// internal/live, not through audit.
func TestRenderersInReport(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, "../../internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	writes := regexp.MustCompile(`"html/template"|<!DOCTYPE html|report\.SARIF\(|"\$schema":\s*"https://[^"]*sarif`)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pkg, dir := strings.TrimPrefix(f[0], module), f[1]
		if pkg == "internal/report" || strings.HasPrefix(pkg, "internal/report/") {
			continue
		}
		for _, name := range f[2:] {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if m := writes.Find(src); m != nil {
				t.Errorf("%s/%s writes HTML or SARIF (%s); renderers live under internal/report", pkg, name, m)
			}
		}
	}
	deps, err := exec.Command("go", "list", "-deps", "../../internal/doctor").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if strings.Contains(string(deps), module+"internal/audit\n") {
		t.Error("internal/doctor depends on internal/audit; share through internal/live instead")
	}
}
