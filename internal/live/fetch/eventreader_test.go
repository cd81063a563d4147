package fetch

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/winkube/winkube/internal/live"
)

// eventCluster is a fake API server holding, in each of n namespaces, two
// pods (one picked: "sick-...") with one event each, and recording every
// events list as "namespace|fieldSelector".
func eventCluster(n int) (*fake.Clientset, []*corev1.Pod, *[]string) {
	var objs []runtime.Object
	var pods []*corev1.Pod
	for i := range n {
		ns := fmt.Sprintf("ns-%02d", i)
		for _, name := range []string{"sick", "ok"} {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name)}}
			pods = append(pods, p)
			objs = append(objs, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + ".1"},
				Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: name, UID: p.UID}, Reason: "BackOff", Note: name, EventTime: metav1.NewMicroTime(t0)})
		}
	}
	cs := fake.NewClientset(objs...)
	var mu sync.Mutex
	var lists []string
	cs.PrependReactor("list", "events", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		lists = append(lists, a.GetNamespace()+"|"+a.(k8stesting.ListAction).GetListRestrictions().Fields.String())
		return false, nil, nil
	})
	return cs, pods, &lists
}

func sick(p *corev1.Pod) bool { return p.Name == "sick" }

// readPodEvents feeds the pods to an eventReader as a pod list would and
// returns the events it keeps, sorted.
func readPodEvents(t *testing.T, cs *fake.Clientset, pods []*corev1.Pod, ns string, perPod int) []string {
	t.Helper()
	r := &reader{s: &live.Snapshot{}, ns: ns, eventLimit: 100}
	er := newEventReader(context.Background(), r, cs, sick, perPod)
	for _, p := range pods {
		er.see(p)
	}
	if err := er.finish(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range r.s.Events {
		got = append(got, string(e.Object.UID))
	}
	sort.Strings(got)
	return got
}

// TestEventReader: whichever plan applies (one pod by its UID, its
// namespace, one list per namespace, or one of all namespaces past
// maxNamespaceLists), only the picked pods' events are kept, and the
// lists the plan calls for are the ones made (a namespace's list begins
// while pods are still read, which these lists cannot show, but
// test/e2e/audit's per-pod, namespace and -A reads agree).
func TestEventReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		namespaces int
		ns         string
		perPod     int
		lists      []string // the lists made, sorted, when checked
	}{
		{"one pod by its UID", 1, "", 1, []string{"ns-00|regarding.uid=ns-00/sick"}},
		{"namespaces", 3, "", 1, []string{"ns-00|", "ns-01|", "ns-02|"}},
		{"the namespace read, its one pod", 3, "ns-01", 1, []string{"ns-01|regarding.uid=ns-01/sick"}},
		{"the namespace read", 3, "ns-01", -1, []string{"ns-01|"}},
		{"all namespaces past the limit", maxNamespaceLists + 3, "", 1, nil},
		{"never one pod at a time", 1, "", -1, []string{"ns-00|"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, pods, lists := eventCluster(tt.namespaces)
			if tt.ns != "" {
				pods = slices.DeleteFunc(pods, func(p *corev1.Pod) bool { return p.Namespace != tt.ns })
			}
			got := readPodEvents(t, cs, pods, tt.ns, tt.perPod)
			var want []string
			for _, p := range pods {
				if sick(p) {
					want = append(want, string(p.UID))
				}
			}
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("events kept for %v, want %v", got, want)
			}
			made := slices.Clone(*lists)
			sort.Strings(made)
			if tt.lists != nil && !slices.Equal(made, tt.lists) {
				t.Errorf("lists made %v, want %v", made, tt.lists)
			}
			if tt.name == "all namespaces past the limit" && !slices.Contains(made, "|") {
				t.Errorf("lists made %v: want one of all namespaces", made)
			}
		})
	}
}
