package fidelity

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Extender is a kube-scheduler filter extender that records, for every pod
// the scheduler tries to place, the nodes that passed all of the
// scheduler's own filter plugins: the scheduler calls an extender with
// exactly those nodes (and not at all when there are none). It filters
// nothing out, except that for a pod with a chosen node among the feasible
// ones it answers with that node alone, so the real binding follows
// winkube's tie-break, and that it filters out every node for probe pods.
type Extender struct {
	srv *httptest.Server

	mu       sync.Mutex
	feasible map[types.UID][]string // first filter call per pod
	choose   map[string]string      // namespace/name -> node
}

// The wire types of k8s.io/kube-scheduler/extender/v1 (which has no JSON
// tags), reduced to what the filter verb uses with nodeCacheCapable.
type extenderArgs struct {
	Pod       *corev1.Pod
	NodeNames *[]string
}

type extenderFilterResult struct {
	NodeNames *[]string
	Error     string
}

// NewExtender serves an extender on 127.0.0.1; Close stops it.
func NewExtender() *Extender {
	e := &Extender{feasible: map[types.UID][]string{}, choose: map[string]string{}}
	e.srv = httptest.NewServer(http.HandlerFunc(e.filter))
	return e
}

// Close stops the server.
func (e *Extender) Close() { e.srv.Close() }

// SchedulerConfig is the KubeSchedulerConfiguration fragment that makes the
// scheduler call the extender, for controlplane.Options.SchedulerConfigExtra.
func (e *Extender) SchedulerConfig() string {
	return fmt.Sprintf("extenders:\n- urlPrefix: %q\n  filterVerb: filter\n  nodeCacheCapable: true\n  httpTimeout: 30s\n", e.srv.URL)
}

// Choose sets the node to bind each pod ("namespace/name") to when it is
// feasible, replacing earlier choices.
func (e *Extender) Choose(choices map[string]string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.choose = choices
}

// Feasible returns the sorted nodes that passed the scheduler's filters in
// its first attempt at the pod, and whether the scheduler asked at all.
func (e *Extender) Feasible(uid types.UID) ([]string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	names, ok := e.feasible[uid]
	return names, ok
}

func (e *Extender) filter(w http.ResponseWriter, r *http.Request) {
	var args extenderArgs
	if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.Pod == nil || args.NodeNames == nil {
		// The scheduler treats an error as a scheduling failure, which the
		// test then reports as a mismatch with its message.
		writeJSON(w, extenderFilterResult{Error: fmt.Sprintf("fidelity extender: bad filter request: %v", err)})
		return
	}
	names := slices.Clone(*args.NodeNames)
	slices.Sort(names)
	e.mu.Lock()
	if _, seen := e.feasible[args.Pod.UID]; !seen {
		e.feasible[args.Pod.UID] = names
	}
	want, ok := e.choose[args.Pod.Namespace+"/"+args.Pod.Name]
	e.mu.Unlock()
	result := *args.NodeNames
	switch {
	case isProbe(args.Pod):
		result = []string{} // probes only ask which nodes pass; they never bind
	case ok && slices.Contains(result, want):
		result = []string{want}
	}
	writeJSON(w, extenderFilterResult{NodeNames: &result})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
