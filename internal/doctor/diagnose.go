package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

// Options configures a diagnosis.
type Options struct {
	// Pod limits the diagnosis to one pod by name (in the snapshot's
	// namespace); it is diagnosed even when it looks healthy.
	Pod string
	// Now is the time States are judged at; zero means time.Now().
	Now time.Time
	// CreatingAfter is how long ContainerCreating is normal.
	CreatingAfter time.Duration
	Rules         []*rule.Rule // lint rules for the verdict on the pod's workload
	// Settings are the config's rule settings: a cause they disable is
	// never named. nil names every cause.
	Settings     *rule.Settings
	Model        *winsupport.Model
	NoSimulation bool
}

// Report is what doctor found.
type Report struct {
	Server    string
	Checked   int // pods looked at
	Unhealthy int
	// Nodes is how many nodes have a node cause (from their logs).
	Nodes     int
	Diagnoses []Diagnosis
	// Kubelets says how the kubelets were read; nil when they were not.
	Kubelets *live.KubeletAccess
}

// PodRef names a pod.
type PodRef struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	UID       types.UID `json:"uid"`
}

// Diagnosis is one cause of one pod's trouble.
type Diagnosis struct {
	Pod         PodRef     `json:"pod"`
	Node        string     `json:"node,omitempty"`
	NodeOS      string     `json:"nodeOS,omitempty"`
	NodeBuild   string     `json:"nodeBuild,omitempty"`
	Owner       string     `json:"owner"` // Kind/namespace/name of the workload
	State       string     `json:"state"`
	Cause       string     `json:"cause"`
	Title       string     `json:"title"`
	Summary     string     `json:"summary"`
	Likelihood  int        `json:"likelihood"` // 0-100, higher first
	Evidence    []Evidence `json:"evidence"`
	Explanation string     `json:"explanation"`
	Steps       []string   `json:"steps"`
	Commands    []Command  `json:"commands"`
	Sources     []string   `json:"sources"`
}

// Diagnose explains the unhealthy pods of a snapshot, and names the node
// causes the kubelets' logs show (when the snapshot holds them).
func Diagnose(ctx context.Context, s *live.Snapshot, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	m, _ := live.ModelFor(s.Server)
	if opts.Model != nil {
		m = *opts.Model
	}
	rep := &Report{Server: s.Server, Kubelets: s.KubeletAccess}
	if err := diagnosePods(ctx, s, opts, m, rep); err != nil {
		return nil, err
	}
	if opts.Pod == "" {
		seen := map[string]bool{}
		for _, d := range diagnoseNodes(s) {
			if !seen[d.Node] {
				seen[d.Node] = true
				rep.Nodes++
			}
			rep.Diagnoses = append(rep.Diagnoses, d)
		}
	}
	return rep, nil
}

// diagnosePods explains the unhealthy pods into rep.
func diagnosePods(ctx context.Context, s *live.Snapshot, opts Options, m winsupport.Model, rep *Report) error {
	var sick []*podCtx
	for _, p := range s.Pods {
		if opts.Pod != "" && p.Name != opts.Pod {
			continue
		}
		rep.Checked++
		st, examine := examine(p, opts)
		if !examine {
			continue
		}
		if st == "" && opts.Pod == "" {
			// A young ContainerCreating pod: examined only when its
			// events already show a cause it will not outgrow.
			if !showsFatal(s.PodEvents(p.UID)) {
				continue
			}
			st = "ContainerCreating"
		}
		c := &podCtx{pod: p, state: st, model: m, node: s.Node(p.Spec.NodeName)}
		if c.node != nil {
			c.nodeOS = cluster.NodeOS(c.node)
		}
		for _, e := range s.PodEvents(p.UID) {
			c.evidence = append(c.evidence, fromEvent(e))
		}
		c.evidence = append(c.evidence, statusEvidence(p)...)
		c.stats = statsEvidence(s, c)
		sick = append(sick, c)
	}
	if opts.Pod != "" && rep.Checked == 0 {
		return fmt.Errorf("pod %q not found in namespace %q", opts.Pod, s.Namespace)
	}
	if len(sick) == 0 {
		return nil
	}
	owners := live.NewOwners(s)
	tops, err := live.TopLevel(s, owners)
	if err != nil {
		return err
	}
	lint := map[string][]rule.Finding{}
	for _, f := range live.Lint(s, tops, opts.Rules, m) {
		if !f.Suppressed && f.Object != nil {
			lint[f.Object.Ref()] = append(lint[f.Object.Ref()], f)
		}
	}
	sims := map[string]*simulate.PodResult{}
	if !opts.NoSimulation && len(s.Nodes) > 0 {
		res, err := simulate.Run(ctx, live.PlacedInput(s, m))
		if err != nil {
			return fmt.Errorf("simulating the live cluster: %w", err)
		}
		for i := range res.Pods {
			sims[res.Pods[i].Workload] = &res.Pods[i]
		}
	}
	causes := Enabled(opts.Settings)
	for _, c := range sick {
		c.sim = sims["Pod/"+c.pod.Namespace+"/"+c.pod.Name]
		owner := owners.Top(c.pod).Ref()
		if c.state != "" {
			rep.Unhealthy++
		}
		rep.Diagnoses = append(rep.Diagnoses, diagnose(c, owner, lint[owner], causes)...)
	}
	return nil
}

// Examined returns the pods Diagnose looks into with the same options:
// the unhealthy ones, or the one named by opts.Pod.
func Examined(s *live.Snapshot, opts Options) []*corev1.Pod {
	examines := Examines(opts)
	var out []*corev1.Pod
	for _, p := range s.Pods {
		if examines(p) {
			out = append(out, p)
		}
	}
	return out
}

// Examines says of one pod whether Diagnose looks into it with the same
// options (a young ContainerCreating pod is looked into through its
// events, and diagnosed only when they show a cause it will not outgrow). Theirs are the only events Diagnose reads, so a reader may
// fetch just those (fetch.Options.EventsAbout, which asks as the pods are
// read); opts.Now must then be set, so that both judge the pods at the
// same moment.
func Examines(opts Options) func(*corev1.Pod) bool {
	opts = opts.withDefaults()
	return func(p *corev1.Pod) bool {
		if opts.Pod != "" && p.Name != opts.Pod {
			return false
		}
		_, ok := examine(p, opts)
		return ok
	}
}

// examine returns the pod's State and whether Diagnose looks into it (or,
// for a young ContainerCreating pod, into its events: see showsFatal).
func examine(p *corev1.Pod, opts Options) (string, bool) {
	st := State(p, opts.Now, opts.CreatingAfter)
	return st, st != "" || opts.Pod != "" || creatingYoung(p, opts.Now, opts.CreatingAfter)
}

func (o Options) withDefaults() Options {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.CreatingAfter == 0 {
		o.CreatingAfter = DefaultCreatingAfter
	}
	return o
}

// diagnose names the causes of one pod, most likely first.
func diagnose(c *podCtx, owner string, lint []rule.Finding, causes []*Cause) []Diagnosis {
	type scored struct {
		cause *Cause
		h     hit
		order int
	}
	var hits []scored
	unknown := false
	for i, cause := range causes {
		unknown = unknown || cause == Unknown
		if m := matchers[cause]; m != nil {
			if h, ok := m(c); ok {
				hits = append(hits, scored{cause, h, i})
			}
		}
	}
	if len(hits) == 0 {
		if c.state == "" || !unknown {
			return nil
		}
		hits = append(hits, scored{cause: Unknown, h: hit{score: 0, evidence: c.evidence, detail: lastMessage(c.evidence)}})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].h.score > hits[j].h.score })
	var out []Diagnosis
	for _, s := range hits {
		d := Diagnosis{Pod: PodRef{c.pod.Namespace, c.pod.Name, c.pod.UID}, Node: c.pod.Spec.NodeName, NodeOS: c.nodeOS, Owner: owner, State: c.state,
			Cause: s.cause.ID, Title: s.cause.Title, Likelihood: s.h.score, Evidence: s.h.evidence, Explanation: s.cause.Explain,
			Steps: fill(s.cause.Steps, c), Sources: s.cause.Sources}
		if c.node != nil && c.nodeOS == "windows" {
			d.NodeBuild = cluster.NodeBuild(c.node)
			d.Evidence = append(d.Evidence, Evidence{Source: "node", Message: fmt.Sprintf("node %s runs Windows build %s (kernel %s, %s)", c.node.Name, d.NodeBuild, c.node.Status.NodeInfo.KernelVersion, c.node.Status.NodeInfo.ContainerRuntimeVersion)})
		}
		if c.stats != nil && (s.cause == OOMKilled || s.cause == Evicted) {
			d.Evidence = append(d.Evidence, *c.stats)
		}
		if v := simVerdict(c.sim); v != nil && !hasSource(d.Evidence, "simulate") {
			d.Evidence = append(d.Evidence, *v)
		}
		for _, f := range lint {
			d.Evidence = append(d.Evidence, Evidence{Source: "lint", Reason: f.Rule, Message: f.Message})
		}
		d.Summary = fmt.Sprintf("%s: %s", c.stateOr("pod"), s.cause.Title)
		if s.h.detail != "" {
			d.Summary += ": " + s.h.detail
		}
		for _, cmd := range s.cause.Commands {
			cmd.Line = fill([]string{cmd.Line}, c)[0]
			d.Commands = append(d.Commands, cmd)
		}
		out = append(out, d)
	}
	return out
}

func (c *podCtx) stateOr(def string) string {
	if c.state == "" {
		return def
	}
	return c.state
}

func lastMessage(ev []Evidence) string {
	for i := len(ev) - 1; i >= 0; i-- {
		if ev[i].Message != "" {
			return Core(ev[i].Message)
		}
	}
	return ""
}

// fill replaces the placeholders of steps and commands.
func fill(lines []string, c *podCtx) []string {
	image, container := "IMAGE", "CONTAINER"
	if len(c.pod.Spec.Containers) > 0 {
		image, container = c.pod.Spec.Containers[0].Image, c.pod.Spec.Containers[0].Name
	}
	for _, cs := range c.pod.Status.ContainerStatuses {
		if !cs.Ready {
			container = cs.Name
			for _, ctr := range c.pod.Spec.Containers {
				if ctr.Name == cs.Name {
					image = ctr.Image
				}
			}
			break
		}
	}
	node := c.pod.Spec.NodeName
	if node == "" {
		node = "NODE"
	}
	r := strings.NewReplacer("{pod}", c.pod.Name, "{ns}", c.pod.Namespace, "{node}", node, "{image}", image, "{container}", container, "{uid}", string(c.pod.UID))
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = r.Replace(l)
	}
	return out
}

// simVerdict is what winkube simulate predicts for the pod on the live
// nodes, when it predicts trouble.
func simVerdict(r *simulate.PodResult) *Evidence {
	switch {
	case r == nil:
		return nil
	case r.Pending && r.Message != "":
		e := simEvidence(r)
		return &e
	case r.StartFailure != "":
		return &Evidence{Source: "simulate", Message: "on node " + r.Node + ": " + r.StartFailure}
	}
	return nil
}

func hasSource(ev []Evidence, source string) bool {
	for _, e := range ev {
		if e.Source == source {
			return true
		}
	}
	return false
}
