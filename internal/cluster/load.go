package cluster

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/manifest"
)

// APIVersion and Kind identify a compact cluster file.
const (
	APIVersion = manifest.APIVersion
	Kind       = "Cluster"
)

// file is the compact cluster file: the Cluster with its type header.
type file struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Cluster    `json:",inline"`
}

// Load reads a cluster from path, which holds either a compact cluster file
// (apiVersion winkube.io/v1alpha1, kind Cluster) or Node objects as
// `kubectl get nodes -o yaml` prints them. Every problem is reported at
// once, each naming the file and line.
func Load(path string) (*Cluster, error) {
	data, err := manifest.ReadFile(path, 0)
	if err != nil {
		if me, ok := err.(*manifest.Error); ok {
			return nil, me
		}
		return nil, manifest.ReadError(path, err)
	}
	ins, inErrs := manifest.Inputs([]string{path}, nil)
	if len(inErrs) > 0 {
		return nil, joinManifestErrors(inErrs)
	}
	objs, errs := manifest.ReadAll(ins)
	if isCompact(objs) {
		return loadCompact(path, data, objs)
	}
	if len(errs) > 0 {
		return nil, joinManifestErrors(errs)
	}
	return fromNodeObjects(path, objs)
}

func isCompact(objs []*manifest.Object) bool {
	for _, o := range objs {
		if strings.HasPrefix(o.APIVersion, "winkube.io/") {
			return true
		}
	}
	return false
}

func loadCompact(path string, data []byte, objs []*manifest.Object) (*Cluster, error) {
	if len(objs) != 1 {
		return nil, &manifest.Error{File: path, Line: 1, Msg: fmt.Sprintf("a cluster file holds one document, found %d", len(objs)), Class: manifest.ErrInvalid,
			Hint: "put the node pools of one cluster in a single Cluster document"}
	}
	var f file
	err := manifest.DecodeFile(path, data, &f, func() []manifest.Problem {
		var ps []manifest.Problem
		if f.APIVersion != APIVersion {
			ps = append(ps, manifest.Problemf("apiVersion", "must be %s, got %q", APIVersion, f.APIVersion))
		}
		if f.Kind != Kind {
			ps = append(ps, manifest.Problemf("kind", "must be %s, got %q", Kind, f.Kind))
		}
		return append(ps, f.Cluster.Problems()...)
	})
	if err != nil {
		return nil, err
	}
	c := f.Cluster
	return &c, nil
}

// fromNodeObjects builds a cluster from observed Node objects: the nodes
// are kept exactly, and pools are derived from them for the lint profile.
func fromNodeObjects(path string, objs []*manifest.Object) (*Cluster, error) {
	var nodes []*corev1.Node
	var errs []error
	for _, o := range objs {
		n, ok := o.Typed.(*corev1.Node)
		if !ok {
			line, col := o.Locate("")
			errs = append(errs, &manifest.Error{File: o.File, Line: line, Column: col, Class: manifest.ErrInvalid,
				Msg:  fmt.Sprintf("%s %s is not a Node", o.Kind, o.Name),
				Hint: "a cluster file is either a winkube Cluster or the output of kubectl get nodes -o yaml"})
			continue
		}
		if n.Name == "" {
			line, col := o.Locate("metadata")
			errs = append(errs, &manifest.Error{File: o.File, Line: line, Column: col, Msg: "metadata.name: required", Class: manifest.ErrInvalid})
			continue
		}
		nodes = append(nodes, n)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(nodes) == 0 {
		return nil, &manifest.Error{File: path, Line: 1, Msg: "no nodes found", Class: manifest.ErrInvalid,
			Hint: "write a Cluster file (see examples/cluster.yaml) or save kubectl get nodes -o yaml"}
	}
	return FromNodes(nodes), nil
}

func joinManifestErrors(es []*manifest.Error) error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errors.Join(errs...)
}
