package fidelity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

// Simulate runs the case through winkube: nodes are the Node objects the
// real API server stored, and the RuntimeClasses and pods go through the
// manifest loader from their YAML, as a user's files would.
func Simulate(ctx context.Context, cs *Case, nodes []*corev1.Node) (*simulate.Result, error) {
	docs := cs.documents(false)
	data, err := marshalDocs(docs)
	if err != nil {
		return nil, err
	}
	objs, err := readObjects(cs.Name()+".yaml", data)
	if err != nil {
		return nil, err
	}
	// The harness runs no kubelets: a pod one would refuse stays bound there.
	return simulate.Run(ctx, simulate.Input{Nodes: nodes, Objects: objs, Model: winsupport.Default(), NoKubelets: true})
}

// marshalDocs renders objects as a multi-document YAML stream.
func marshalDocs(docs []any) ([]byte, error) {
	var buf bytes.Buffer
	for _, d := range docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("marshal %T: %w", d, err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// readObjects loads a YAML stream with the manifest package; any problem
// is an error, since the test wrote the stream itself.
func readObjects(file string, data []byte) ([]*manifest.Object, error) {
	s := manifest.NewSplitter(file, bytes.NewReader(data), false)
	var objs []*manifest.Object
	var errs []error
	for {
		doc, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if doc.Err != nil {
			errs = append(errs, doc.Err)
			continue
		}
		o, es := manifest.Decode(doc)
		for _, e := range es {
			errs = append(errs, e)
		}
		objs = append(objs, o...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("loading %s: %w", file, err)
	}
	return objs, nil
}
