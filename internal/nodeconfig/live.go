package nodeconfig

import (
	"encoding/json"
	"fmt"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// FromConfigz makes a Kubelet file of the kubeletconfig object a running
// kubelet serves on /configz (its effective configuration, every default
// applied), so the node rules check a live node as they check a file.
// name stands for the file's path in findings, e.g. "node/win-1/configz".
// The object is decoded leniently: a newer kubelet may serve fields this
// winkube does not know, which must not hide the ones it does.
func FromConfigz(name string, data []byte) (*File, error) {
	kc := &kubeletv1beta1.KubeletConfiguration{}
	if err := json.Unmarshal(data, kc); err != nil {
		return nil, &LoadError{File: name, Msg: fmt.Sprintf("the kubelet's /configz is not a KubeletConfiguration: %v", err)}
	}
	f := &File{Path: name, Kind: Kubelet, Kubelet: kc, ix: newIndex()}
	// JSON is YAML: the located tree gives the findings a line in the
	// body as served.
	if objs, errs := manifest.ReadAll([]manifest.Input{manifest.BytesInput(name, data)}); len(errs) == 0 && len(objs) == 1 {
		f.ix = yamlIndex(objs[0].Root)
	}
	return f, nil
}

// CheckConfigz runs the node rules that apply to a kubelet's
// configuration over the kubeletconfig object of its /configz, with the
// rule IDs and messages of nodeconfig validate. build is the node's
// Windows build number (0 when unknown).
func CheckConfigz(name string, data []byte, build int, m winsupport.Model) ([]rule.Finding, error) {
	f, err := FromConfigz(name, data)
	if err != nil {
		return nil, err
	}
	return Validate([]*File{f}, nil, Options{BuildNumber: build, Model: m}), nil
}
