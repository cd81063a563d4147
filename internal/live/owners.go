package live

import (
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/internal/manifest"
)

// Owners resolves a pod to the workload a user wrote: a pod of a
// ReplicaSet of a Deployment is the Deployment's, a Job of a CronJob is
// the CronJob's. An owner that is not in the snapshot (another namespace
// was read, or it is a custom resource) stops the walk.
type Owners struct {
	byUID map[types.UID]ref
}

type ref struct {
	apiVersion, kind string
	meta             *metav1.ObjectMeta
}

// NewOwners indexes the snapshot's controllers.
func NewOwners(s *Snapshot) *Owners {
	o := &Owners{byUID: map[types.UID]ref{}}
	s.eachController(func(apiVersion, kind string, m *metav1.ObjectMeta, _ any) { o.byUID[m.UID] = ref{apiVersion, kind, m} })
	return o
}

// eachController calls f with each workload controller of the snapshot
// and its apiVersion and kind, in TopLevel's order: Deployments,
// StatefulSets, DaemonSets, CronJobs, Jobs, ReplicaSets, then
// ReplicationControllers.
func (s *Snapshot) eachController(f func(apiVersion, kind string, m *metav1.ObjectMeta, v any)) {
	eachOf(s.Deployments, "apps/v1", "Deployment", f)
	eachOf(s.StatefulSets, "apps/v1", "StatefulSet", f)
	eachOf(s.DaemonSets, "apps/v1", "DaemonSet", f)
	eachOf(s.CronJobs, "batch/v1", "CronJob", f)
	eachOf(s.Jobs, "batch/v1", "Job", f)
	eachOf(s.ReplicaSets, "apps/v1", "ReplicaSet", f)
	eachOf(s.ReplicationControllers, "v1", "ReplicationController", f)
}

// eachOf calls f with each object of one kind: the loop every kind of
// the snapshot shares.
func eachOf[T interface{ GetObjectMeta() metav1.Object }](xs []T, apiVersion, kind string, f func(apiVersion, kind string, m *metav1.ObjectMeta, v any)) {
	for _, x := range xs {
		f(apiVersion, kind, x.GetObjectMeta().(*metav1.ObjectMeta), x)
	}
}

// controller returns the object's controlling owner in the snapshot.
func (o *Owners) controller(m *metav1.ObjectMeta) (ref, bool) {
	for _, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			got, ok := o.byUID[r.UID]
			return got, ok
		}
	}
	return ref{}, false
}

// Owned reports whether the object has a controlling owner in the
// snapshot, so findings about it belong to that owner.
func (o *Owners) Owned(m *metav1.ObjectMeta) bool {
	_, ok := o.controller(m)
	return ok
}

// Top returns the identity of the topmost owner of a pod (the pod
// itself when it has none in the snapshot).
func (o *Owners) Top(p *corev1.Pod) *manifest.Object {
	cur := ref{"v1", "Pod", &p.ObjectMeta}
	for range 8 {
		next, ok := o.controller(cur.meta)
		if !ok {
			break
		}
		cur = next
	}
	return &manifest.Object{APIVersion: cur.apiVersion, Kind: cur.kind, Namespace: cur.meta.Namespace, Name: cur.meta.Name}
}

// TopLevel returns the workloads a user wrote, the Services and the
// NetworkPolicies, as objects the engine reads, in a stable order: Deployments,
// StatefulSets, DaemonSets, CronJobs, then Jobs, ReplicaSets,
// ReplicationControllers and Pods that no other object in the snapshot
// controls.
func TopLevel(s *Snapshot, o *Owners) ([]*manifest.Object, error) {
	var out []*manifest.Object
	var errs []error
	add := func(apiVersion, kind string, m *metav1.ObjectMeta, v any) {
		if o.Owned(m) {
			return
		}
		obj, err := Object(apiVersion, kind, v)
		if err != nil {
			errs = append(errs, err)
			return
		}
		out = append(out, obj)
	}
	s.eachController(add)
	eachOf(s.Pods, "v1", "Pod", add)
	eachOf(s.Services, "v1", "Service", add)
	eachOf(s.NetworkPolicies, "networking.k8s.io/v1", "NetworkPolicy", add)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	if len(errs) > 0 {
		return out, fmt.Errorf("encoding live objects: %v", errs[0])
	}
	return out, nil
}

// Object turns a typed live object into the engine's object: the engine
// reads it as lint reads a file (JSON is YAML), so the ignore annotation
// and field paths work the same. The object has no file; findings on it
// are located by Kind/namespace/name and field path.
func Object(apiVersion, kind string, v any) (*manifest.Object, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	head := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,`, apiVersion, kind)
	data := append([]byte(head), body[1:]...)
	objs, errs := manifest.Decode(manifest.Document{File: "", Line: 1, Data: data})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %s", kind, errs[0].Msg)
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%s: decoded %d objects", kind, len(objs))
	}
	return objs[0], nil
}
