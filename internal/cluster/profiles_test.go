package cluster

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestNamedProfiles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		taints []corev1.Taint
		build  string
	}{
		{"reference", []corev1.Taint{WindowsTaint}, "10.0.20348"},
		{"aks", nil, "10.0.20348"},
		{"eks", nil, "10.0.20348"},
		{"gke", []corev1.Taint{{Key: "node.kubernetes.io/os", Value: "windows", Effect: corev1.TaintEffectNoSchedule}}, "10.0.20348"},
		{"openshift", []corev1.Taint{{Key: "os", Value: "Windows", Effect: corev1.TaintEffectNoSchedule}}, "10.0.20348"},
	}
	for _, c := range cases {
		cl, err := Named(c.name)
		if err != nil {
			t.Fatal(err)
		}
		win := cl.PoolsOf("windows")
		if len(win) != 1 || !cl.Hybrid() {
			t.Fatalf("%s: want one Windows pool in a hybrid cluster, got %+v", c.name, cl.Pools)
		}
		if diff := cmp.Diff(c.taints, win[0].Taints); diff != "" {
			t.Errorf("%s taints (-want +got):\n%s", c.name, diff)
		}
		if win[0].WindowsBuild != c.build || cl.Assumed || cl.Source != "--cluster "+c.name+" (built-in)" {
			t.Errorf("%s: build %s, assumed %v, source %q", c.name, win[0].WindowsBuild, cl.Assumed, cl.Source)
		}
	}
	for _, p := range Profiles() {
		if p.TaintSource == "" || p.BuildsSource == "" || p.Versions == "" {
			t.Errorf("profile %s: every default needs its source", p.Name)
		}
	}
	if _, err := Named("azure"); err == nil || !strings.Contains(err.Error(), "aks, eks, gke, openshift, reference") {
		t.Errorf("unknown profile: got %v", err)
	}
	a := Assumed()
	if !a.Assumed || !strings.Contains(a.Describe(), "assumed") {
		t.Errorf("Assumed: %+v %q", a.Assumed, a.Describe())
	}
}

func TestWindowsTaintNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tol  corev1.Toleration
		want string // "" when it names no Windows taint
	}{
		{corev1.Toleration{Key: "OS", Value: "Windows", Effect: corev1.TaintEffectNoSchedule}, "OS=Windows:NoSchedule"},
		{corev1.Toleration{Key: "os", Operator: corev1.TolerationOpEqual, Value: "windows"}, "os=windows:NoSchedule"},
		{corev1.Toleration{Key: "example.com/os", Value: "WINDOWS", Effect: corev1.TaintEffectNoExecute}, "example.com/os=WINDOWS:NoExecute"},
		{corev1.Toleration{Key: "os", Operator: corev1.TolerationOpExists}, ""},
		{corev1.Toleration{Key: "os", Value: "linux"}, ""},
		{corev1.Toleration{Key: "osname", Value: "windows"}, ""},
		{corev1.Toleration{Key: "os", Value: "windows", Effect: corev1.TaintEffectPreferNoSchedule}, ""},
		{corev1.Toleration{Operator: corev1.TolerationOpExists}, ""},
	} {
		got := ""
		if taint, ok := WindowsTaintNamed(tc.tol); ok {
			got = taint.ToString()
		}
		if got != tc.want {
			t.Errorf("WindowsTaintNamed(%+v) = %q, want %q", tc.tol, got, tc.want)
		}
	}
}
