package fetch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/winkube/winkube/internal/live"
)

// eventReader reads the events of the pods EventsAbout picks, starting
// while the pods are still being read: once more pods are picked than are
// read one at a time, the plan (eventPlan) can only be their namespaces'
// lists (or one list of all namespaces), so each namespace's list starts
// as soon as a picked pod names it. The lists run beside the reading of
// the pods and the other kinds, which is most of a read's time on a
// large cluster. Which API serves the events is found by the first list;
// the others wait for it.
type eventReader struct {
	r      *reader
	cs     kubernetes.Interface
	ctx    context.Context
	about  func(*corev1.Pod) bool
	perPod int

	mu      sync.Mutex
	picked  []*corev1.Pod
	skipped map[types.UID]bool     // pods read and not picked: their events are dropped
	lists   map[string]*eventFetch // started namespace lists ("" for all namespaces)
	all     bool                   // the namespaces are too many: one list of all

	apiMu    sync.Mutex // held by the first list until the API is known
	apiKnown bool
	api      int // index of eventAPIs; -1 when neither may be listed

	sem chan struct{}
	wg  sync.WaitGroup
}

// eventFetch is one list of events in flight.
type eventFetch struct {
	cancel context.CancelFunc
	done   chan struct{}
	evs    []live.Event
	err    error
}

func newEventReader(ctx context.Context, r *reader, cs kubernetes.Interface, about func(*corev1.Pod) bool, perPod int) *eventReader {
	return &eventReader{r: r, cs: cs, ctx: ctx, about: about, perPod: perPod, skipped: map[types.UID]bool{},
		lists: map[string]*eventFetch{}, sem: make(chan struct{}, eventConcurrency)}
}

// see is told of every pod as it is read.
func (e *eventReader) see(p *corev1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.about(p) {
		e.skipped[p.UID] = true
		return
	}
	e.picked = append(e.picked, p)
	switch {
	case e.perPod >= 0 && len(e.picked) <= e.perPod:
		// Still few enough to read one pod at a time: wait.
	case e.perPod >= 0 && len(e.picked) == e.perPod+1:
		for _, q := range e.picked {
			e.prefetch(q.Namespace)
		}
	default:
		e.prefetch(p.Namespace)
	}
}

// prefetch starts the list of a picked pod's namespace (of the namespace
// read, with -n) unless it runs already; past maxNamespaceLists
// namespaces the lists give way to one of all namespaces. e.mu is held.
func (e *eventReader) prefetch(ns string) {
	if e.r.ns != "" {
		ns = e.r.ns
	}
	if e.all || e.lists[ns] != nil {
		return
	}
	if e.r.ns == "" && len(e.lists) == maxNamespaceLists {
		for _, f := range e.lists {
			f.cancel()
		}
		e.lists, e.all, ns = map[string]*eventFetch{}, true, ""
	}
	e.lists[ns] = e.start(eventQuery{ns: ns})
}

// start runs one query in the background.
func (e *eventReader) start(q eventQuery) *eventFetch {
	ctx, cancel := context.WithCancel(e.ctx)
	f := &eventFetch{cancel: cancel, done: make(chan struct{})}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer close(f.done)
		e.sem <- struct{}{}
		defer func() { <-e.sem }()
		f.evs, f.err = e.list(ctx, q)
	}()
	return f
}

// list runs one query through the events API, finding the API first if
// no list has yet: events.k8s.io/v1 and, when that is not served or not
// allowed, core/v1. Both serve the same stored events (whichever API a
// kubelet wrote them with), so reading both would list every event
// twice. Events about pods known not to be picked are dropped as they
// come.
func (e *eventReader) list(ctx context.Context, q eventQuery) ([]live.Event, error) {
	e.apiMu.Lock()
	if e.apiKnown {
		api := e.api
		e.apiMu.Unlock()
		if api < 0 {
			return nil, nil
		}
		evs, err := e.r.eventList(ctx, e.cs, api, q, e.keep)
		if err != nil {
			return nil, fmt.Errorf("listing %s events: %w", eventAPIs[api].name, err)
		}
		return evs, nil
	}
	defer e.apiMu.Unlock()
	var denied []error
	for i := range eventAPIs {
		evs, err := e.r.eventList(ctx, e.cs, i, q, e.keep)
		if err == nil {
			e.api, e.apiKnown = i, true
			return evs, nil
		}
		if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) && !(i == 0 && apierrors.IsNotFound(err)) {
			return nil, fmt.Errorf("listing %s events: %w", eventAPIs[i].name, err)
		}
		denied = append(denied, err)
	}
	e.api, e.apiKnown = -1, true
	e.r.deny("events.k8s.io", "events", e.r.ns, denied[0])
	e.r.deny("", "events", e.r.ns, denied[1])
	return nil, nil
}

// keep drops events about pods read and not picked.
func (e *eventReader) keep(ev *live.Event) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.skipped[ev.Object.UID]
}

// finish reads what the final plan needs once every pod is read: the
// picked pods one at a time, or the namespace lists already started
// (starting any that are not), and keeps only the picked pods' events.
func (e *eventReader) finish() error {
	e.mu.Lock()
	picked := e.picked
	e.mu.Unlock()
	plan := eventPlan(e.r.ns, picked, e.perPod)
	if len(plan) == 0 {
		e.r.report("events (none needed)", 0)
		return nil
	}
	want := make(map[types.UID]bool, len(picked))
	for _, p := range picked {
		want[p.UID] = true
	}
	evs, err := e.collect(plan, func(ev *live.Event) bool { return want[ev.Object.UID] })
	if err != nil {
		return err
	}
	e.r.setEvents(e, evs)
	return nil
}

// collect waits for the plan's lists (starting those not yet started),
// cancels any other, and joins their events in plan order, keeping those
// keep accepts (all when nil).
func (e *eventReader) collect(plan []eventQuery, keep func(*live.Event) bool) ([]live.Event, error) {
	e.mu.Lock()
	fs := make([]*eventFetch, len(plan))
	used := map[*eventFetch]bool{}
	for i, q := range plan {
		if f := e.lists[q.ns]; q.uid == "" && f != nil {
			fs[i] = f
		} else {
			fs[i] = e.start(q)
		}
		used[fs[i]] = true
	}
	for _, f := range e.lists {
		if !used[f] {
			f.cancel()
		}
	}
	e.mu.Unlock()
	defer e.wg.Wait()
	var errs []error
	n := 0
	for _, f := range fs {
		<-f.done
		if f.err != nil {
			errs = append(errs, f.err)
		}
		n += len(f.evs)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make([]live.Event, 0, n)
	for _, f := range fs {
		for i := range f.evs {
			if keep == nil || keep(&f.evs[i]) {
				out = append(out, f.evs[i])
			}
		}
	}
	return out, nil
}
