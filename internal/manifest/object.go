package manifest

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Object is one Kubernetes object read from the input. The values of
// Root, and most strings of Typed, share the text of the document: copy
// (strings.Clone) a string that must outlive the object, or it keeps the
// whole document in memory. The identity fields and string maps (labels,
// annotations, selectors) are copies already.
type Object struct {
	File       string
	Doc        int // index of the document in its file
	Item       int // index in a List's items, or -1
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
	Root       *Node
	// Typed is the decoded k8s.io/api object (*corev1.Pod, *appsv1.Deployment,
	// ...) for the kinds winkube models, nil for others.
	Typed any
	// custom is the pod template of a custom resource, nil for others.
	custom *customTemplate
	// unknown remembers UnknownFields for the loader's objects: lint and
	// simulate's validation ask for every object, and a plan asks for
	// each several times.
	unknown *unknownMemo
}

// Group returns the API group of the object ("" for core).
func (o *Object) Group() string {
	g, _, ok := strings.Cut(o.APIVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// Ref is "Kind/namespace/name" or "Kind/name", for messages.
func (o *Object) Ref() string {
	if o.Namespace != "" {
		return o.Kind + "/" + o.Namespace + "/" + o.Name
	}
	return o.Kind + "/" + o.Name
}

// groupKind keys typedKinds without building a string per object.
type groupKind struct{ group, kind string }

// typedKinds maps group/Kind to a constructor of its typed object. Older
// API versions of the same kind decode into the current struct: the fields
// winkube reads have not moved.
var typedKinds = map[groupKind]func() any{
	{"", "Pod"}:                            func() any { return new(corev1.Pod) },
	{"", "ReplicationController"}:          func() any { return new(corev1.ReplicationController) },
	{"", "Service"}:                        func() any { return new(corev1.Service) },
	{"", "ConfigMap"}:                      func() any { return new(corev1.ConfigMap) },
	{"", "Node"}:                           func() any { return new(corev1.Node) },
	{"", "PersistentVolume"}:               func() any { return new(corev1.PersistentVolume) },
	{"", "PersistentVolumeClaim"}:          func() any { return new(corev1.PersistentVolumeClaim) },
	{"", "PodTemplate"}:                    func() any { return new(corev1.PodTemplate) },
	{"apps", "Deployment"}:                 func() any { return new(appsv1.Deployment) },
	{"apps", "StatefulSet"}:                func() any { return new(appsv1.StatefulSet) },
	{"apps", "DaemonSet"}:                  func() any { return new(appsv1.DaemonSet) },
	{"apps", "ReplicaSet"}:                 func() any { return new(appsv1.ReplicaSet) },
	{"extensions", "Deployment"}:           func() any { return new(appsv1.Deployment) },
	{"extensions", "DaemonSet"}:            func() any { return new(appsv1.DaemonSet) },
	{"extensions", "ReplicaSet"}:           func() any { return new(appsv1.ReplicaSet) },
	{"batch", "Job"}:                       func() any { return new(batchv1.Job) },
	{"batch", "CronJob"}:                   func() any { return new(batchv1.CronJob) },
	{"node.k8s.io", "RuntimeClass"}:        func() any { return new(nodev1.RuntimeClass) },
	{"networking.k8s.io", "NetworkPolicy"}: func() any { return new(networkingv1.NetworkPolicy) },
	{"storage.k8s.io", "StorageClass"}:     func() any { return new(storagev1.StorageClass) },
}

// Decode parses one document into its objects: one, the items of a List,
// or none for an empty document. Problems come back as errors; an object
// whose typed decoding failed is still returned, with Typed nil, so rules
// that only need its metadata can run.
func Decode(doc Document) ([]*Object, []*Error) {
	if doc.Err != nil {
		return nil, []*Error{doc.Err}
	}
	if e := helmTemplate(doc); e != nil {
		return nil, []*Error{e}
	}
	root, perr := doc.root()
	if perr != nil {
		return nil, []*Error{perr}
	}
	if root.IsNull() { // empty, or an explicit null ("--- ~")
		return nil, nil
	}
	var objs []*Object
	var errs []*Error
	add := func(n *Node, item int) {
		o, es := decodeObject(doc, n, item)
		if o != nil {
			objs = append(objs, o)
		}
		errs = append(errs, es...)
	}
	if isList(root) {
		items, err := flatten(doc.File, root, nil)
		if err != nil {
			return nil, []*Error{err}
		}
		for i, it := range items {
			add(it, i)
		}
		return objs, errs
	}
	add(root, -1)
	return objs, errs
}

// isList reports whether n is a List (v1 List, or any kind ending in List)
// holding its objects under items.
func isList(n *Node) bool {
	return n.Kind == MappingNode && strings.HasSuffix(n.String("kind"), "List") && n.Get("items") != nil
}

// flatten appends the objects of List n to out; a List among the items is
// replaced by its own items, recursively, as kubectl's FlattenListVisitor
// does (k8s.io/cli-runtime/pkg/resource/visitor.go). Object.Item numbers
// the objects in this order.
func flatten(file string, n *Node, out []*Node) ([]*Node, *Error) {
	items := n.Get("items")
	if items.Kind != SequenceNode && !items.IsNull() {
		return nil, &Error{File: file, Line: items.Line, Column: items.Column, Msg: "items: expected a list, got " + describe(items), Hint: "a List holds its objects in a YAML list under items", Class: ErrType}
	}
	for _, it := range items.Content {
		if !isList(it) {
			out = append(out, it)
			continue
		}
		var err *Error
		if out, err = flatten(file, it, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func decodeObject(doc Document, n *Node, item int) (*Object, []*Error) {
	if n.Kind != MappingNode {
		return nil, []*Error{{File: doc.File, Line: n.Line, Column: n.Column,
			Msg: fmt.Sprintf("not a Kubernetes object: the document is %s", describe(n)), Hint: "each document must be a mapping with apiVersion and kind", Class: ErrNotObject}}
	}
	// The identity is copied out of the document's text: it outlives the
	// object in summaries and messages.
	o := &Object{File: doc.File, Doc: doc.Index, Item: item, Root: n, unknown: &unknownMemo{},
		APIVersion: strings.Clone(n.String("apiVersion")), Kind: strings.Clone(n.String("kind"))}
	if o.APIVersion == "" || o.Kind == "" {
		return nil, []*Error{{File: doc.File, Line: n.Line, Column: n.Column,
			Msg: "not a Kubernetes object: apiVersion or kind is missing", Hint: "winkube reads Kubernetes manifests; leave other YAML (Helm values, CI config) out of the input", Class: ErrNotObject}}
	}
	meta := n.Get("metadata")
	o.Name, o.Namespace = strings.Clone(meta.String("name")), strings.Clone(meta.String("namespace"))
	if o.Name == "" {
		o.Name = strings.Clone(meta.String("generateName"))
	}
	errs := placeholders(doc.File, n)
	if newObj, ok := typedKinds[groupKind{o.Group(), o.Kind}]; ok {
		typed := newObj()
		if err := decodeInto(doc.File, n, typed); err != nil {
			return o, append(errs, err)
		}
		o.Typed = typed
	} else if o.Group() != "" && strings.Contains(o.Group(), ".") {
		// A custom resource's group has a dot; built-in groups beyond the
		// typed ones carry no pod templates.
		o.custom = findCustomTemplate(doc.File, n, groupKind{o.Group(), o.Kind})
	}
	return o, errs
}
