package fetch

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/internal/live"
)

var (
	t0 = time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	t1 = t0.Add(5 * time.Minute)
)

// TestEventForms: an event reads the same whether a kubelet wrote it
// through core/v1 (count, timestamps, source) or a controller through
// events.k8s.io/v1 (eventTime, series, reporting controller), and a
// core/v1 event read back through events.k8s.io/v1 keeps its count.
func TestEventForms(t *testing.T) {
	t.Parallel()
	ref := corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web", UID: "u1"}
	tests := []struct {
		name string
		got  live.Event
		want live.Event
	}{
		{"core/v1 from the kubelet", fromCoreV1(&corev1.Event{InvolvedObject: ref, Reason: "BackOff", Message: "m", Count: 7, Type: "Warning",
			FirstTimestamp: metav1.NewTime(t0), LastTimestamp: metav1.NewTime(t1), Source: corev1.EventSource{Component: "kubelet", Host: "win-1"}}),
			live.Event{Object: ref, Type: "Warning", Reason: "BackOff", Message: "m", Count: 7, First: t0, Last: t1, Source: "kubelet, win-1", API: "core/v1"}},
		{"events.k8s.io/v1 with a series", fromEventsV1(&eventsv1.Event{Regarding: ref, Reason: "FailedScheduling", Note: "n", Type: "Warning", EventTime: metav1.NewMicroTime(t0),
			ReportingController: "default-scheduler", ReportingInstance: "sched-1", Series: &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(t1)}}),
			live.Event{Object: ref, Type: "Warning", Reason: "FailedScheduling", Message: "n", Count: 3, First: t0, Last: t1, Source: "default-scheduler, sched-1", API: "events.k8s.io/v1"}},
		{"core/v1 event read through events.k8s.io/v1", fromEventsV1(&eventsv1.Event{Regarding: ref, Reason: "Failed", Note: "m", Type: "Warning",
			DeprecatedCount: 4, DeprecatedFirstTimestamp: metav1.NewTime(t0), DeprecatedLastTimestamp: metav1.NewTime(t1), DeprecatedSource: corev1.EventSource{Component: "kubelet", Host: "win-2"}}),
			live.Event{Object: ref, Type: "Warning", Reason: "Failed", Message: "m", Count: 4, First: t0, Last: t1, Source: "kubelet, win-2", API: "events.k8s.io/v1"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestPermission(t *testing.T) {
	t.Parallel()
	d := live.Denied{Group: "apps", Resource: "deployments"}
	want := `grant verbs [get, list, watch] on resource "deployments" of apiGroup apps cluster-wide (ClusterRole), as in deploy/audit-rbac.yaml`
	if got := d.Permission(); got != want {
		t.Errorf("Permission() = %q, want %q", got, want)
	}
}

// TestEventPlan: no pods need no events; a few are read one pod at a
// time; more are read by their namespaces, or in one list when the
// namespace read is one or the namespaces are many.
func TestEventPlan(t *testing.T) {
	t.Parallel()
	pod := func(ns, uid string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: uid, UID: types.UID(uid)}}
	}
	two := []*corev1.Pod{pod("shop", "a"), pod("web", "b")}
	three := []*corev1.Pod{pod("web", "a"), pod("shop", "b"), pod("web", "c")}
	var many []*corev1.Pod
	for i := range maxNamespaceLists + 1 {
		many = append(many, pod(fmt.Sprintf("ns-%d", i), fmt.Sprint(i)))
	}
	tests := []struct {
		name   string
		ns     string
		pods   []*corev1.Pod
		perPod int
		want   []eventQuery
	}{
		{"no pods", "", nil, 1, nil},
		{"few pods", "", two, 2, []eventQuery{{ns: "shop", uid: "a"}, {ns: "web", uid: "b"}}},
		{"more pods than per pod", "", three, 2, []eventQuery{{ns: "shop"}, {ns: "web"}}},
		{"never per pod", "", two, -1, []eventQuery{{ns: "shop"}, {ns: "web"}}},
		{"one namespace read", "web", three, 2, []eventQuery{{ns: "web"}}},
		{"many namespaces", "", many, 2, []eventQuery{{ns: ""}}},
	}
	for _, tt := range tests {
		got := eventPlan(tt.ns, tt.pods, tt.perPod)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(eventQuery{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
