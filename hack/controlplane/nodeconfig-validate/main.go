// Command nodeconfig-validate runs the pinned Kubernetes release's own
// configuration validation on KubeletConfiguration and
// KubeProxyConfiguration files, so winkube's tests can check that what
// winkube generates, and the fixtures it reads, are accepted by the real
// kubelet and kube-proxy code (the parts of it that run on Linux).
//
// It prints one JSON object per file on stdout:
//
//	{"file": "...", "kind": "KubeletConfiguration", "errors": ["..."]}
//
// and exits 0, or 2 when it cannot read a file or is used wrongly.
//
// What runs: strict decoding into the versioned type with defaulting and
// conversion (the kubelet's codec, kube-proxy's scheme), the feature gates
// as the component sets them (locked gates fail), and the validation
// packages (pkg/kubelet/apis/config/validation, pkg/proxy/apis/config/validation).
// The Windows branches of that validation (validation_windows.go, the
// kernelspace proxy mode) are compiled only for Windows; kube-proxy's mode
// is therefore cleared before validation and reported separately, and
// winkube's node rules carry the Windows wording. failCgroupV1 is cleared
// too: it judges the Linux host running this command, not the file.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/version"
	"sigs.k8s.io/yaml"

	_ "k8s.io/kubernetes/pkg/features" // registers the Kubernetes feature gates
	kubeletscheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme"
	kubeletvalidation "k8s.io/kubernetes/pkg/kubelet/apis/config/validation"
	"k8s.io/kubernetes/pkg/kubelet/kubeletconfig/util/codec"
	proxyconfig "k8s.io/kubernetes/pkg/proxy/apis/config"
	proxyscheme "k8s.io/kubernetes/pkg/proxy/apis/config/scheme"
	proxyvalidation "k8s.io/kubernetes/pkg/proxy/apis/config/validation"
)

type result struct {
	File   string   `json:"file"`
	Kind   string   `json:"kind"`
	Errors []string `json:"errors"`
	// Mode is kube-proxy's mode as written; Linux validation cannot judge
	// kernelspace, so it is reported for the caller to check.
	Mode string `json:"mode,omitempty"`
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		// build-controlplane.sh stamps the version as for the other binaries.
		fmt.Println("nodeconfig-validate Kubernetes " + version.Get().GitVersion)
		return
	}
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nodeconfig-validate FILE...")
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "error: %v\n", err)
			os.Exit(2)
		}
		r, err := validate(path, data)
		if err != nil {
			fmt.Fprintf(os.Stderr, "error: %s: %v\n", path, err)
			os.Exit(2)
		}
		if err := enc.Encode(r); err != nil {
			os.Exit(2)
		}
	}
}

func validate(path string, data []byte) (*result, error) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return nil, err
	}
	r := &result{File: path, Kind: tm.Kind, Errors: []string{}}
	switch tm.Kind {
	case "KubeletConfiguration":
		r.Errors = kubelet(data)
	case "KubeProxyConfiguration":
		r.Errors, r.Mode = kubeProxy(data)
	default:
		return nil, fmt.Errorf("kind %q: want KubeletConfiguration or KubeProxyConfiguration", tm.Kind)
	}
	return r, nil
}

// gates returns a fresh copy of the Kubernetes feature gates set as the
// component would set them.
func gates(set map[string]bool) (featuregate.FeatureGate, error) {
	fg := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	return fg, fg.SetFromMap(set)
}

func kubelet(data []byte) (errs []string) {
	// The kubelet's defaulting applies the file's feature gates and panics
	// when one cannot be set (a locked gate); the real kubelet dies with the
	// same message, so it is reported as the file's error.
	defer func() {
		if p := recover(); p != nil {
			errs = []string{fmt.Sprint(p)}
		}
	}()
	_, codecs, err := kubeletscheme.NewSchemeAndCodecs(serializer.EnableStrict)
	if err != nil {
		return []string{err.Error()}
	}
	kc, err := codec.DecodeKubeletConfiguration(context.Background(), codecs, data)
	if err != nil {
		return []string{err.Error()}
	}
	fg, err := gates(kc.FeatureGates)
	if err != nil {
		return []string{err.Error()}
	}
	// failCgroupV1 (default true) fails validation on a Linux host with
	// cgroup v1, whatever the file says; a Windows node has no cgroups, so
	// the host-dependent check is left out.
	kc.FailCgroupV1 = false
	if err := kubeletvalidation.ValidateKubeletConfiguration(kc, fg); err != nil {
		return split(err.Error())
	}
	return nil
}

func kubeProxy(data []byte) ([]string, string) {
	obj, _, err := proxyscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return []string{err.Error()}, ""
	}
	c, ok := obj.(*proxyconfig.KubeProxyConfiguration)
	if !ok {
		return []string{fmt.Sprintf("decoded %T, not a KubeProxyConfiguration", obj)}, ""
	}
	mode := string(c.Mode)
	c.Mode = ""
	var out []string
	for _, e := range proxyvalidation.Validate(c) {
		out = append(out, errString(e))
	}
	return out, mode
}

func errString(e *field.Error) string { return e.Error() }

// split turns an aggregate error ("[a, b]") into its messages.
func split(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return strings.Split(s, ", ")
}
