package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/winkube/winkube/internal/nodeconfig/generate"
)

// KubernetesVersion is the release the validator is built from.
const KubernetesVersion = "v1.36.3"

// validator returns the nodeconfig-validate binary, running the build
// script when it is missing. A missing binary fails the test.
func validator(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("WINKUBE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatalf("no WINKUBE_CACHE and no home directory: %v", err)
		}
		cache = filepath.Join(home, ".cache", "winkube")
	}
	bin := filepath.Join(cache, "controlplane", KubernetesVersion, "bin", "nodeconfig-validate")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "..", "hack", "build-controlplane.sh"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s missing; running %s", bin, script)
	cmd := exec.CommandContext(t.Context(), "bash", script)
	cmd.Dir = filepath.Dir(filepath.Dir(script))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("%s failed: %v\n%s\n%s", script, err, out, stderr.String())
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s ran but %s is missing: %v", script, bin, err)
	}
	return bin
}

type result struct {
	File   string   `json:"file"`
	Kind   string   `json:"kind"`
	Errors []string `json:"errors"`
	Mode   string   `json:"mode"`
}

// upstream runs the validator on files and returns its verdict per file.
func upstream(t *testing.T, files ...string) map[string]result {
	t.Helper()
	got, _ := upstreamLog(t, files...)
	return got
}

// upstreamLog also returns what the validator logged (klog) on stderr.
func upstreamLog(t *testing.T, files ...string) (map[string]result, string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), validator(t), files...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nodeconfig-validate: %v\n%s", err, stderr.String())
	}
	got := map[string]result{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var r result
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("nodeconfig-validate output: %v\n%s", err, out)
		}
		got[r.File] = r
	}
	if len(got) != len(files) {
		t.Fatalf("nodeconfig-validate judged %d of %d files:\n%s", len(got), len(files), out)
	}
	return got, stderr.String()
}

// TestGeneratedPassesUpstream: the kubelet and kube-proxy files generate
// writes, for every CNI and containerd line, pass the real validation.
func TestGeneratedPassesUpstream(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, cni := range generate.CNIs {
		for _, ctd := range []string{"1.7.27", "2.1.4"} {
			n := generate.Node{APIVersion: generate.APIVersion, Kind: generate.Kind, KubernetesVersion: "1.36",
				WindowsBuild: "ltsc2022", ContainerdVersion: ctd, CNI: cni, PodCIDR: "10.244.0.0/16", ServiceCIDR: "10.96.0.0/12"}
			if cni == generate.FlannelOverlay || cni == generate.CalicoVXLAN {
				n.SourceVip = "10.244.3.2"
			}
			r, err := n.Resolve()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range generate.Generate(r) {
				if f.Path != generate.KubeletConfig && f.Path != generate.KubeProxyConf {
					continue
				}
				p := filepath.Join(dir, cni+"-"+ctd+"-"+filepath.Base(filepath.Dir(f.Path))+".yaml")
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				files = append(files, p)
			}
		}
	}
	for _, p := range files {
		r := upstream(t, p)[p]
		if len(r.Errors) > 0 {
			t.Errorf("%s: the %s %s validation rejects it:\n  %s", p, KubernetesVersion, r.Kind, strings.Join(r.Errors, "\n  "))
		}
		if r.Kind == "KubeProxyConfiguration" && r.Mode != "kernelspace" {
			t.Errorf("%s: kube-proxy mode %q, want kernelspace", p, r.Mode)
		}
	}
}

// TestFixturesUpstream: the hand-written fixtures get the verdict the node
// rules predict, in the same words where both speak.
func TestFixturesUpstream(t *testing.T) {
	cases := "../../../internal/nodeconfig/testdata/cases"
	quiet := filepath.Join(cases, "kubelet-quiet", "kubelet.yaml")
	kubeletBad := filepath.Join(cases, "kubelet-bad", "kubelet.yaml")
	proxyBad := filepath.Join(cases, "proxy-overlay", "proxy.yaml")
	got := upstream(t, quiet, kubeletBad, proxyBad)

	if errs := got[quiet].Errors; len(errs) > 0 {
		t.Errorf("%s passes every node rule but upstream rejects it: %v", quiet, errs)
	}
	// node-locked-feature-gate speaks component-base's words.
	for file, want := range map[string]string{
		kubeletBad: "cannot set feature gate WinOverlay to false, feature is locked to true",
		proxyBad:   "cannot set feature gate WinDSR to false, feature is locked to true",
	} {
		if !slices.ContainsFunc(got[file].Errors, func(e string) bool { return strings.Contains(e, want) }) {
			t.Errorf("%s: upstream errors %q do not contain the node rule's message %q", file, got[file].Errors, want)
		}
	}
	if m := got[proxyBad].Mode; m != "iptables" {
		t.Errorf("%s: mode %q, want iptables (kube-proxy-mode fires on it)", proxyBad, m)
	}
}

// TestUnknownFieldUpstream: the kubelet's strict decoding finds the same
// unknown field node-config-input reports, then falls back to lenient
// decoding and starts with the field dropped, which is why winkube flags it.
func TestUnknownFieldUpstream(t *testing.T) {
	typo := filepath.Join("..", "..", "..", "internal", "nodeconfig", "testdata", "cases", "input", "typo.yaml")
	got, log := upstreamLog(t, typo)
	if errs := got[typo].Errors; len(errs) > 0 {
		t.Errorf("%s: the kubelet accepts the file leniently, but the validator reports %v", typo, errs)
	}
	if want := `strict decoding error: unknown field \"cgroupsPerQos\"`; !strings.Contains(log, want) {
		t.Errorf("%s: the kubelet's log lacks %s:\n%s", typo, want, log)
	}
}
