package fetch

import (
	"context"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/live"
)

// DefaultPerPodEvents is how many pods' events are read one pod at a time
// (a field selector on the involved object's UID) rather than by listing
// their namespaces. The API server keeps no cache or index of events, so
// a per-pod request reads and decodes every event of the namespace from
// etcd, as the namespace list does; it saves only encoding, sending and
// decoding the other pods' events. Measured on the benchmark cluster
// (100,000 events, docs/performance.md): one per-pod request cost 3.5 s
// of API server and etcd CPU, the namespace list 4 to 6 s with the
// client's decoding, so only a single pod is read on its own.
const DefaultPerPodEvents = 1

// maxNamespaceLists is how many namespaces' events are listed one
// namespace at a time before one list of all namespaces is cheaper in
// requests.
const maxNamespaceLists = 32

// eventAPIs are the two APIs serving events, newer first, with the field
// names each gives the involved object's UID.
var eventAPIs = [...]struct {
	name, uidField string
}{{"events.k8s.io/v1", "regarding.uid"}, {"core/v1", "involvedObject.uid"}}

// eventQuery is one list of events: a namespace ("" for all) and, when
// uid is set, only the events about that object.
type eventQuery struct {
	ns  string
	uid types.UID
}

// eventPlan says how to read the events of pods: nothing for no pods,
// one query per pod for up to perPod pods, else one per namespace of the
// pods, or one of all namespaces when they are more than
// maxNamespaceLists or ns (the namespace read, "" for all) is set.
func eventPlan(ns string, pods []*corev1.Pod, perPod int) []eventQuery {
	if len(pods) == 0 {
		return nil
	}
	if len(pods) <= perPod {
		out := make([]eventQuery, len(pods))
		for i, p := range pods {
			out[i] = eventQuery{ns: p.Namespace, uid: p.UID}
		}
		return out
	}
	if ns != "" {
		return []eventQuery{{ns: ns}}
	}
	seen := map[string]bool{}
	var out []eventQuery
	for _, p := range pods {
		if !seen[p.Namespace] {
			seen[p.Namespace] = true
			out = append(out, eventQuery{ns: p.Namespace})
		}
	}
	if len(out) > maxNamespaceLists {
		return []eventQuery{{ns: ""}}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ns < out[j].ns })
	return out
}

// events reads every event of the namespace read.
func (r *reader) events(ctx context.Context, cs kubernetes.Interface) error {
	er := newEventReader(ctx, r, cs, nil, 0)
	evs, err := er.collect([]eventQuery{{ns: r.ns}}, nil)
	if err != nil {
		return err
	}
	r.setEvents(er, evs)
	return nil
}

// setEvents stores the events read and reports them.
func (r *reader) setEvents(er *eventReader, evs []live.Event) {
	r.s.Events = evs
	if er.api >= 0 {
		r.report("events ("+eventAPIs[er.api].name+")", len(evs))
	}
}

// eventConcurrency bounds the event lists in flight at once.
const eventConcurrency = 8

// eventList reads every page of one query through API api (an index of
// eventAPIs).
func (r *reader) eventList(ctx context.Context, cs kubernetes.Interface, api int, q eventQuery, keep func(*live.Event) bool) ([]live.Event, error) {
	sel := r.eventSelector
	if q.uid != "" {
		sel = strings.Trim(eventAPIs[api].uidField+"="+string(q.uid)+","+sel, ",")
	}
	opts := metav1.ListOptions{Limit: r.eventLimit, FieldSelector: sel}
	var out []live.Event
	pages := pager{resource: "events"}
	add := func(e live.Event) {
		if keep == nil || keep(&e) {
			out = append(out, e)
		}
	}
	for {
		var cont string
		if api == 0 {
			l, err := cs.EventsV1().Events(q.ns).List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for i := range l.Items {
				add(fromEventsV1(&l.Items[i]))
			}
			cont = l.Continue
		} else {
			l, err := cs.CoreV1().Events(q.ns).List(ctx, opts)
			if err != nil {
				return nil, err
			}
			for i := range l.Items {
				add(fromCoreV1(&l.Items[i]))
			}
			cont = l.Continue
		}
		if opts.Continue = cont; cont == "" {
			return out, nil
		}
		if err := pages.next(cont, len(out)); err != nil {
			return nil, err
		}
	}
}

func fromCoreV1(e *corev1.Event) live.Event {
	ev := live.Event{Object: e.InvolvedObject, Type: e.Type, Reason: e.Reason, Message: e.Message, Count: e.Count,
		First: e.FirstTimestamp.Time, Last: e.LastTimestamp.Time, API: "core/v1"}
	if e.Series != nil {
		ev.Count = e.Series.Count
		ev.Last = e.Series.LastObservedTime.Time
	}
	if ev.First.IsZero() {
		ev.First = e.EventTime.Time
	}
	if ev.Last.IsZero() {
		ev.Last = ev.First
	}
	if ev.Count == 0 {
		ev.Count = 1
	}
	ev.Source = source(e.Source.Component, e.Source.Host, e.ReportingController, e.ReportingInstance)
	return ev
}

func fromEventsV1(e *eventsv1.Event) live.Event {
	ev := live.Event{Object: e.Regarding, Type: e.Type, Reason: e.Reason, Message: e.Note, Count: 1,
		First: e.EventTime.Time, Last: e.EventTime.Time, API: "events.k8s.io/v1"}
	if ev.First.IsZero() {
		ev.First, ev.Last = e.DeprecatedFirstTimestamp.Time, e.DeprecatedLastTimestamp.Time
		if e.DeprecatedCount > 0 {
			ev.Count = e.DeprecatedCount
		}
	}
	if e.Series != nil {
		ev.Count = e.Series.Count
		ev.Last = e.Series.LastObservedTime.Time
	}
	if ev.Last.IsZero() {
		ev.Last = ev.First
	}
	ev.Source = source(e.DeprecatedSource.Component, e.DeprecatedSource.Host, e.ReportingController, e.ReportingInstance)
	return ev
}

// source renders who reported an event as kubectl describe does:
// "kubelet, node-1".
func source(component, host, controller, instance string) string {
	if component == "" {
		component, host = controller, instance
	}
	parts := []string{}
	for _, p := range []string{component, host} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}
