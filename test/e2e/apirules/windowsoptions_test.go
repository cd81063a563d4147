package apirules_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rules"
	"github.com/winkube/winkube/internal/winsupport"
)

// userNames probes every branch of the runAsUserName check, including
// the byte-versus-character counts and ASCII-only control characters.
var userNames = []string{
	"", "a", "ContainerUser", `NT AUTHORITY\SYSTEM`, `NT AUTHORITY\\SYSTEM`, `a\b\c`,
	`\user`, `.dom\user`, `dom.\user`, `-dom-\user`, `ÄÖÜ\user`,
	strings.Repeat("é", 15) + `\user`, strings.Repeat("é", 16) + `\user`,
	strings.Repeat("a", 255) + `\u`, strings.Repeat("a", 256) + `\u`,
	strings.Repeat("a", 63) + `.com\u`, strings.Repeat("a", 64) + `.com\u`,
	`a-.com\u`, `a..b\u`, `contoso.com\svc-web`, `CON TOSO\u`, `a*b\u`,
	`dom\ `, `dom\..`, `dom\. .`, `dom\a b`, `dom\`,
	"dom\\" + strings.Repeat("u", 104), "dom\\" + strings.Repeat("u", 105), strings.Repeat("é", 60),
	"a\tb", "a\x7fb", "a\u0085b",
	`u"`, `u/`, `u:`, `u;`, `u|`, `u=`, `u,`, `u+`, `u*`, `u?`, `u<`, `u>`, `u@`, `u[`, `u]`, `..\a@b`,
}

// gmsaNames probes gmsaCredentialSpecName, and gmsaSpecs gmsaCredentialSpec.
var (
	gmsaNames = []string{"webapp1", "WebApp1", "gmsa_webapp", "-bad", "a.b.c", strings.Repeat("a", 254), ""}
	gmsaSpecs = []string{"", "{}", strings.Repeat("x", 64*1024), strings.Repeat("x", 64*1024+1)}
)

const windowsOptionsPath = "spec.securityContext.windowsOptions."

// testWindowsOptionsOnAPIServer creates a pod for every name in the tables
// and compares the API server's windowsOptions errors with the findings
// the suite's API rules report for the same pod.
func testWindowsOptionsOnAPIServer(t *testing.T, dyn dynamic.Interface, ns string) {
	var cases []*corev1.WindowsSecurityContextOptions
	for _, n := range userNames {
		cases = append(cases, &corev1.WindowsSecurityContextOptions{RunAsUserName: &n})
	}
	for _, n := range gmsaNames {
		cases = append(cases, &corev1.WindowsSecurityContextOptions{GMSACredentialSpecName: &n})
	}
	for _, s := range gmsaSpecs {
		cases = append(cases, &corev1.WindowsSecurityContextOptions{GMSACredentialSpec: &s})
	}
	for _, o := range cases {
		pod := &corev1.Pod{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: "probe"},
			Spec: corev1.PodSpec{
				SecurityContext: &corev1.PodSecurityContext{WindowsOptions: o},
				Containers:      []corev1.Container{{Name: "c", Image: "mcr.microsoft.com/windows/nanoserver:ltsc2022"}},
			},
		}
		got, err := dryRunErrors(t.Context(), dyn, ns, "v1", "Pod", pod)
		if err != nil {
			t.Fatal(err)
		}
		got = slices.DeleteFunc(got, func(s string) bool { return !strings.HasPrefix(s, windowsOptionsPath) })
		want := windowsOptionsFindings(t, pod)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("windowsOptions %s:\n\tAPI server: %q\n\twinkube:    %q", describe(o), got, want)
		}
	}
}

// windowsOptionsFindings runs the suite's API rules over the pod and
// returns the messages of their findings under windowsOptions.
func windowsOptionsFindings(t *testing.T, pod *corev1.Pod) []string {
	t.Helper()
	// JSON with DEL escaped: YAML (and so winkube) reads control
	// characters only as escapes in double-quoted strings.
	data, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte{0x7f}, []byte(`\u007f`))
	in := manifest.BytesInput("probe.json", data)
	res, err := engine.Run(t.Context(), []manifest.Input{in}, engine.Options{Rules: append(rules.API(), rules.LoadError), Cluster: cluster.Reference(), Model: winsupport.Default()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		if f.Rule == rules.LoadError.ID {
			t.Fatalf("%s: %s", describe(pod.Spec.SecurityContext.WindowsOptions), f.Message)
		}
		if strings.HasPrefix(f.Path, windowsOptionsPath) {
			out = append(out, f.Message)
		}
	}
	return out
}

func describe(o *corev1.WindowsSecurityContextOptions) string {
	short := func(s string) string {
		if len(s) > 40 {
			return s[:40] + "..."
		}
		return s
	}
	switch {
	case o.RunAsUserName != nil:
		return "runAsUserName " + short(*o.RunAsUserName)
	case o.GMSACredentialSpecName != nil:
		return "gmsaCredentialSpecName " + short(*o.GMSACredentialSpecName)
	}
	return "gmsaCredentialSpec " + short(*o.GMSACredentialSpec)
}
