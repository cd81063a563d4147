package fetch

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/live"
)

// events reads the events through events.k8s.io/v1 and, when that API is
// not served or not allowed, through core/v1. Both APIs serve the same
// stored events (whichever API a kubelet wrote them with), so reading
// both would list every event twice.
func (r *reader) events(ctx context.Context, cs kubernetes.Interface) error {
	evs, err := pages(ctx, r, func(ctx context.Context, o metav1.ListOptions) ([]live.Event, string, error) {
		l, err := cs.EventsV1().Events(r.ns).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		out := make([]live.Event, len(l.Items))
		for i := range l.Items {
			out[i] = fromEventsV1(&l.Items[i])
		}
		return out, l.Continue, nil
	})
	if err == nil {
		r.s.Events = evs
		r.report("events (events.k8s.io/v1)", len(evs))
		return nil
	}
	if !apierrors.IsForbidden(err) && !apierrors.IsNotFound(err) && !apierrors.IsUnauthorized(err) {
		return fmt.Errorf("listing events.k8s.io/v1 events: %w", err)
	}
	newer := err
	evs, err = pages(ctx, r, func(ctx context.Context, o metav1.ListOptions) ([]live.Event, string, error) {
		l, err := cs.CoreV1().Events(r.ns).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		out := make([]live.Event, len(l.Items))
		for i := range l.Items {
			out[i] = fromCoreV1(&l.Items[i])
		}
		return out, l.Continue, nil
	})
	switch {
	case err == nil:
		r.s.Events = evs
		r.report("events (core/v1)", len(evs))
		return nil
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		r.deny("events.k8s.io", "events", r.ns, newer)
		r.deny("", "events", r.ns, err)
		return nil
	}
	return fmt.Errorf("listing core/v1 events: %w", err)
}

func pages(ctx context.Context, r *reader, fetch func(context.Context, metav1.ListOptions) ([]live.Event, string, error)) ([]live.Event, error) {
	var out []live.Event
	opts := metav1.ListOptions{Limit: r.limit, FieldSelector: r.eventSelector}
	for {
		evs, cont, err := fetch(ctx, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
		if opts.Continue = cont; cont == "" {
			return out, nil
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
