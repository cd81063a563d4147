package simulate

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/test/corpusgen"
)

// TestServiceIndexMatchesScan holds the Service index of defaultSelector
// to scanning every Service as helper.DefaultSelector does: the same
// selector for every workload of a generated estate and of hand-made
// cases (other namespaces, the default namespace, overlapping and empty
// selectors).
func TestServiceIndexMatchesScan(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := corpusgen.WriteStream(&buf, corpusgen.Options{Objects: 600, Seed: 23}); err != nil {
		t.Fatal(err)
	}
	hand := `
apiVersion: v1
kind: Service
metadata: {name: a}
spec: {selector: {app: web}}
---
apiVersion: v1
kind: Service
metadata: {name: b, namespace: default}
spec: {selector: {app: web, tier: front}}
---
apiVersion: v1
kind: Service
metadata: {name: c, namespace: other}
spec: {selector: {app: web}}
---
apiVersion: v1
kind: Service
metadata: {name: d}
spec: {}
---
apiVersion: v1
kind: Service
metadata: {name: e}
spec: {selector: {tier: front}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: other}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
`
	for _, yaml := range []string{buf.String(), hand} {
		objs := objects(t, yaml)
		wls, _, _, err := collect(objs, nil)
		if err != nil {
			t.Fatal(err)
		}
		idx := servicesOf(objs)
		selected := 0
		for _, wl := range wls {
			pod := podFor(wl)
			got, gotOwn := defaultSelector(wl, pod, idx)
			want, wantOwn, n := scanSelector(wl, pod, objs)
			if got.String() != want.String() || gotOwn != wantOwn {
				t.Errorf("%s: selector %q (own %v), scanning every Service gives %q (own %v)", wl.ref, got, gotOwn, want, wantOwn)
			}
			if n > 0 {
				selected++
			}
		}
		if selected < len(wls)/4 {
			t.Errorf("Services select the pods of %d of %d workloads: the case does not exercise the index", selected, len(wls))
		}
	}
}

// scanSelector is defaultSelector with every Service scanned, as it was
// before the index; n is how many Services select the pod.
func scanSelector(wl *workload, pod *corev1.Pod, objs []*manifest.Object) (sel labels.Selector, own bool, n int) {
	set := labels.Set{}
	for _, o := range objs {
		svc, ok := o.Typed.(*corev1.Service)
		if !ok {
			continue
		}
		ns := svc.Namespace
		if ns == "" {
			ns = "default"
		}
		if ns != wl.ns || len(svc.Spec.Selector) == 0 {
			continue
		}
		if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			set = labels.Merge(set, svc.Spec.Selector)
			n++
		}
	}
	// The controller's part is defaultSelector's own: run it with no
	// Service and add the Services' set.
	sel, own = defaultSelector(wl, pod, nil)
	if r, ok := set.AsSelector().Requirements(); ok {
		sel = sel.Add(r...)
	}
	return sel, own, n
}
