package cli

import (
	"strings"
	"testing"
)

// Every command says which cluster profile it checked against and where
// it came from; the built-in profiles are chosen by name.
func TestCommandsNameTheClusterProfile(t *testing.T) {
	t.Parallel()
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  nodeSelector: {kubernetes.io/os: windows}\n  containers: [{name: c, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}]\n"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"lint", "-"}, `checking against cluster profile "reference" (built-in reference, assumed:`},
		{[]string{"lint", "--cluster", "gke", "-"}, `checking against cluster profile "gke" (--cluster gke (built-in))`},
		{[]string{"fix", "--cluster", "openshift", "-"}, `checking against cluster profile "openshift" (--cluster openshift (built-in))`},
		{[]string{"simulate", "--cluster", "aks", "-"}, `checking against cluster profile "aks" (--cluster aks (built-in))`},
		{[]string{"policy", "export", "--cluster", "aks"}, `checking against cluster profile "aks" (--cluster aks (built-in))`},
		{[]string{"images", "--offline", "--cluster", "eks", "-"}, `checking against cluster profile "eks" (--cluster eks (built-in))`},
	}
	for _, c := range cases {
		_, _, errOut := run(t, false, pod, c.args...)
		if !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr does not name the profile %q:\n%s", c.args, c.want, errOut)
		}
	}
	// With no profile, the missing toleration is a warning naming the
	// assumption; with GKE's profile it is an error naming GKE's taint.
	_, out, _ := run(t, false, pod, "lint", "--fail-on", "none", "-")
	if !strings.Contains(out, "warning: if your Windows nodes carry the recommended taint os=windows:NoSchedule") {
		t.Errorf("no profile: want the assumed-taint warning:\n%s", out)
	}
	_, out, _ = run(t, false, pod, "lint", "--fail-on", "none", "--cluster", "gke", "-")
	if !strings.Contains(out, "error: Windows workload does not tolerate taint node.kubernetes.io/os=windows:NoSchedule") {
		t.Errorf("gke: want the error for GKE's taint:\n%s", out)
	}
}
