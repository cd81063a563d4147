package nodeconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/winkube/winkube/internal/manifest"
	proxyv1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
)

// Kind is what a node configuration file is.
type Kind string

const (
	Kubelet    Kind = "KubeletConfiguration"
	KubeProxy  Kind = "KubeProxyConfiguration"
	Containerd Kind = "containerd config.toml"
	CNI        Kind = "CNI network configuration"
	FlannelNet Kind = "flannel net-conf.json"
)

// Identities of the two versioned Kubernetes files.
const (
	KubeletAPIVersion   = "kubelet.config.k8s.io/v1beta1"
	KubeProxyAPIVersion = "kubeproxy.config.k8s.io/v1alpha1"
)

// File is one decoded node configuration file.
type File struct {
	Path string
	Kind Kind
	ix   *index
	// Exactly one of these is set, by Kind.
	Kubelet   *kubeletv1beta1.KubeletConfiguration
	KubeProxy *proxyv1alpha1.KubeProxyConfiguration
	// Tree is the decoded TOML or JSON document of the other kinds.
	Tree map[string]any
}

// Locate returns the line and column of a field path in the file.
func (f *File) Locate(path string) (line, col int) {
	p := f.ix.locate(path)
	return p.line, p.col
}

// LoadError is a file that could not be read as node configuration.
type LoadError struct {
	File         string
	Line, Column int
	Msg          string
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Parse recognises data by its content and decodes it strictly. Every
// problem is returned as a *LoadError, joined.
func Parse(path string, data []byte) (*File, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	switch {
	case len(trimmed) == 0:
		return nil, &LoadError{File: path, Line: 1, Column: 1, Msg: "file is empty"}
	}
	if err := checkDepth(path, data); err != nil {
		return nil, err
	}
	switch {
	case trimmed[0] == '{':
		return parseJSON(path, data)
	}
	if f, err, ok := parseVersioned(path, data); ok {
		return f, err
	}
	return parseTOML(path, data)
}

// parseVersioned decodes a KubeletConfiguration or KubeProxyConfiguration;
// ok is false when data is neither.
func parseVersioned(path string, data []byte) (*File, error, bool) {
	objs, errs := manifest.ReadAll([]manifest.Input{manifest.BytesInput(path, data)})
	if len(errs) > 0 || len(objs) != 1 {
		return nil, nil, false
	}
	o := objs[0]
	f := &File{Path: path, ix: yamlIndex(o.Root)}
	var into any
	switch {
	case o.APIVersion == KubeletAPIVersion && o.Kind == string(Kubelet):
		f.Kind, f.Kubelet = Kubelet, &kubeletv1beta1.KubeletConfiguration{}
		into = f.Kubelet
	case o.APIVersion == KubeProxyAPIVersion && o.Kind == string(KubeProxy):
		f.Kind, f.KubeProxy = KubeProxy, &proxyv1alpha1.KubeProxyConfiguration{}
		into = f.KubeProxy
	case strings.HasSuffix(o.Kind, "Configuration"):
		return nil, &LoadError{File: path, Line: 1, Column: 1, Msg: fmt.Sprintf(
			"apiVersion %q kind %q is not a node configuration winkube reads: want %s KubeletConfiguration or %s KubeProxyConfiguration",
			o.APIVersion, o.Kind, KubeletAPIVersion, KubeProxyAPIVersion)}, true
	default:
		return nil, nil, false
	}
	if err := manifest.DecodeStrict(path, data, into); err != nil {
		return nil, loadErrors(path, err), true
	}
	return f, nil, true
}

// loadErrors turns the manifest decoder's errors into LoadErrors.
func loadErrors(path string, err error) error {
	var out []error
	var visit func(error)
	visit = func(e error) {
		var me *manifest.Error
		switch {
		case errors.As(e, &me) && e == error(me):
			msg := me.Msg
			if hint := me.Hint; hint != "" {
				// The kubelet has 150 fields; the full list drowns the message.
				if len(hint) > 200 {
					hint, _, _ = strings.Cut(hint, ";")
				}
				msg += " (" + hint + ")"
			}
			out = append(out, &LoadError{File: path, Line: me.Line, Column: me.Column, Msg: msg})
		default:
			if j, ok := e.(interface{ Unwrap() []error }); ok {
				for _, c := range j.Unwrap() {
					visit(c)
				}
				return
			}
			out = append(out, &LoadError{File: path, Msg: e.Error()})
		}
	}
	visit(err)
	return errors.Join(out...)
}

func yamlIndex(root *manifest.Node) *index {
	ix := newIndex()
	var walk func(n *manifest.Node, at int32)
	walk = func(n *manifest.Node, at int32) {
		switch n.Kind {
		case manifest.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				walk(n.Content[i+1], ix.add(at, keySeg(k.Value), pos{k.Line, k.Column}))
			}
		case manifest.SequenceNode:
			for i, c := range n.Content {
				walk(c, ix.add(at, itemSeg(i), pos{c.Line, c.Column}))
			}
		}
	}
	walk(root, 0)
	return ix
}

func parseJSON(path string, data []byte) (*File, error) {
	var tree map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		at := pos{1, 1}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at = lineCol(data, int(se.Offset))
		}
		return nil, &LoadError{File: path, Line: at.line, Column: at.col, Msg: "invalid JSON: " + err.Error()}
	}
	// libcni reads one JSON value (json.Unmarshal): anything after it is
	// an error there, and so here.
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		at := lineCol(data, int(dec.InputOffset())+bytes.Index(data[dec.InputOffset():], rest[:1]))
		return nil, &LoadError{File: path, Line: at.line, Column: at.col, Msg: "invalid JSON: data after the top-level value (one configuration per file)"}
	}
	ix, err := jsonIndex(path, data)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Tree: tree, ix: ix}
	switch {
	case tree["cniVersion"] != nil || tree["plugins"] != nil || tree["type"] != nil:
		f.Kind = CNI
	case fold(tree, "Network") != nil || fold(tree, "Backend") != nil:
		f.Kind = FlannelNet
	default:
		return nil, &LoadError{File: path, Line: 1, Column: 1, Msg: "JSON file is neither a CNI network configuration (no cniVersion, type or plugins) nor a flannel net-conf.json (no Network or Backend)"}
	}
	return f, nil
}

func parseTOML(path string, data []byte) (*File, error) {
	ix, err := tomlIndex(data)
	if err != nil {
		le := &LoadError{File: path, Msg: err.Error()}
		errors.As(err, &le)
		le.File = path
		le.Msg = "not a KubeletConfiguration, KubeProxyConfiguration, CNI or flannel JSON, and not valid TOML for a containerd config.toml: " + le.Msg
		return nil, le
	}
	var tree map[string]any
	if err := toml.Unmarshal(data, &tree); err != nil {
		return nil, &LoadError{File: path, Msg: "invalid TOML: " + err.Error()}
	}
	if tree["version"] == nil && tree["plugins"] == nil {
		return nil, &LoadError{File: path, Line: 1, Column: 1, Msg: "cannot tell what this file is: a containerd config.toml has version or [plugins], a KubeletConfiguration or KubeProxyConfiguration has apiVersion and kind, a CNI config has cniVersion"}
	}
	return &File{Path: path, Kind: Containerd, Tree: tree, ix: ix}, nil
}
