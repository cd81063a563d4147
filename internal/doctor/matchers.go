package doctor

import (
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

// podCtx is everything known about one unhealthy pod.
type podCtx struct {
	pod      *corev1.Pod
	node     *corev1.Node
	nodeOS   string
	state    string
	evidence []Evidence // events (oldest first), then the pod's status
	sim      *simulate.PodResult
	model    winsupport.Model
	// stats quotes the node's memory from its kubelet, when read.
	stats *Evidence
}

// hit is a cause that matched, with how likely it is and what shows it.
type hit struct {
	score    int
	evidence []Evidence
	detail   string // the core message, for the summary
}

// matcher tries one cause on a pod.
type matcher func(c *podCtx) (hit, bool)

// find returns the evidence kept by keep (all when nil) whose message or
// reason matches one of ps.
func (c *podCtx) find(ps []Pattern, keep func(Evidence) bool) []Evidence {
	return c.where(func(e Evidence) bool {
		if keep != nil && !keep(e) {
			return false
		}
		if _, ok := anyMatch(e.Message, ps); ok {
			return true
		}
		_, ok := anyMatch(e.Reason, ps)
		return ok
	})
}

// where returns the evidence for which keep is true, in order.
func (c *podCtx) where(keep func(Evidence) bool) []Evidence {
	var out []Evidence
	for _, e := range c.evidence {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func found(score int, ev []Evidence) (hit, bool) {
	if len(ev) == 0 {
		return hit{}, false
	}
	last := ev[len(ev)-1]
	return hit{score: score, evidence: ev, detail: Core(last.Message)}, true
}

var nodeCount = regexp.MustCompile(`(\d+) ([^,.:]+)`)

// scheduling matches a FailedScheduling message (event or PodScheduled
// condition), else the simulation's message for the pod. The score grows
// with the number of nodes the reason filtered out, so the reason that
// ruled out most nodes comes first.
func scheduling(p Pattern) matcher {
	return func(c *podCtx) (hit, bool) {
		if c.pod.Spec.NodeName != "" {
			return hit{}, false
		}
		ev := c.find([]Pattern{p}, nil)
		score := 80
		if len(ev) == 0 && c.sim != nil && c.sim.Pending && p.Matches(c.sim.Message) {
			ev = []Evidence{simEvidence(c.sim)}
			score = 70
		}
		if len(ev) == 0 {
			return hit{}, false
		}
		for _, m := range nodeCount.FindAllStringSubmatch(ev[len(ev)-1].Message, -1) {
			if p.Matches(m[2]) {
				n, _ := strconv.Atoi(m[1])
				score += min(n, 15)
			}
		}
		h, _ := found(score, ev)
		if c.sim != nil && len(c.sim.Explanation) > 0 && ev[0].Source != "simulate" {
			h.evidence = append(h.evidence, simEvidence(c.sim))
		}
		return h, true
	}
}

func simEvidence(r *simulate.PodResult) Evidence {
	msg := r.Message
	if len(r.Explanation) > 0 {
		msg += " (" + strings.Join(r.Explanation, "; ") + ")"
	}
	return Evidence{Source: "simulate", Message: msg}
}

// byPatterns matches any evidence with one of the cause's patterns.
func byPatterns(cause *Cause, score int, keep func(*podCtx, Evidence) bool) matcher {
	return func(c *podCtx) (hit, bool) {
		var k func(Evidence) bool
		if keep != nil {
			k = func(e Evidence) bool { return keep(c, e) }
		}
		return found(score, c.find(cause.Patterns, k))
	}
}

func onOS(os string) func(*podCtx, Evidence) bool {
	return func(c *podCtx, _ Evidence) bool { return c.nodeOS == os }
}

func sandboxOnly(_ *podCtx, e Evidence) bool   { return e.sandbox }
func containerOnly(_ *podCtx, e Evidence) bool { return !e.sandbox }

// matchers pairs each cause with how it is recognised.
var matchers = map[*Cause]matcher{
	UntoleratedTaint:             scheduling(UntoleratedTaint.Patterns[0]),
	NoNodeMatchesSelector:        scheduling(NoNodeMatchesSelector.Patterns[0]),
	InsufficientResources:        insufficient,
	PodOSMismatch:                byPatterns(PodOSMismatch, 95, nil),
	PodLevelResourcesUnsupported: byPatterns(PodLevelResourcesUnsupported, 95, nil),
	PauseImageBuildMismatch:      byPatterns(PauseImageBuildMismatch, 95, sandboxOnly),
	ImageBuildMismatch:           byPatterns(ImageBuildMismatch, 95, containerOnly),
	LinuxImageOnWindows:          byPatterns(LinuxImageOnWindows, 90, onOS("windows")),
	WindowsImageOnLinux:          byPatterns(WindowsImageOnLinux, 90, onOS("linux")),
	CNINetworkFailure:            byPatterns(CNINetworkFailure, 90, nil),
	HostProcessIdentity:          byPatterns(HostProcessIdentity, 90, nil),
	CommandNotFound:              commandNotFound,
	DLLNotFound:                  dllNotFound,
	SlowStartKilledByLiveness:    slowStart,
	SlowImagePull:                slowPull,
	OOMKilled:                    oomKilled,
	Evicted:                      evicted,
	DNSResolutionFailure:         dnsFailure,
	ServiceUnreachable:           serviceUnreachable,
	ReadinessProbeFailing:        readiness,
}

func insufficient(c *podCtx) (hit, bool) {
	best, ok := hit{}, false
	for _, p := range InsufficientResources.Patterns {
		if h, hok := scheduling(p)(c); hok && (!ok || h.score > best.score) {
			best, ok = h, true
		}
	}
	return best, ok
}

func commandNotFound(c *podCtx) (hit, bool) {
	h, ok := found(85, c.find(CommandNotFound.Patterns, func(e Evidence) bool { return !e.sandbox }))
	if !ok {
		return h, false
	}
	if c.nodeOS == "windows" {
		for _, ctr := range c.pod.Spec.Containers {
			if len(ctr.Command) > 0 && c.model.LinuxShell(ctr.Command[0]) {
				h.score += 5
				h.evidence = append(h.evidence, Evidence{Source: "status", Container: ctr.Name, Message: "command " + strings.Join(ctr.Command, " ") + " starts a Linux shell on a Windows node"})
			}
		}
	}
	return h, true
}

func dllNotFound(c *podCtx) (hit, bool) {
	h, ok := found(90, c.where(func(e Evidence) bool {
		return e.Source == "status" && (strings.Contains(e.Message, "exit code "+strconv.Itoa(DLLNotFoundExitCode)) || strings.Contains(e.Message, "exit code 3221225781"))
	}))
	h.detail = "exit code -1073741515 (0xC0000135, STATUS_DLL_NOT_FOUND)"
	return h, ok
}

func oomKilled(c *podCtx) (hit, bool) {
	h, ok := found(90, c.where(func(e Evidence) bool { return e.Source == "status" && e.Reason == "OOMKilled" }))
	h.detail = "OOMKilled"
	return h, ok
}

func evicted(c *podCtx) (hit, bool) {
	if c.pod.Status.Reason != "Evicted" {
		return hit{}, false
	}
	return found(95, c.find([]Pattern{{Text: "Evicted"}}, nil))
}

func readiness(c *podCtx) (hit, bool) {
	if c.state != "NotReady" {
		return hit{}, false
	}
	return found(70, c.find(ReadinessProbeFailing.Patterns, nil))
}

// slowStart matches restarts after failed liveness probes; it is most
// likely when the container has no startup probe.
func slowStart(c *podCtx) (hit, bool) {
	restarts := int32(0)
	for _, cs := range c.pod.Status.ContainerStatuses {
		restarts += cs.RestartCount
	}
	if restarts == 0 {
		return hit{}, false
	}
	h, ok := found(60, c.find(SlowStartKilledByLiveness.Patterns, nil))
	if !ok {
		return h, false
	}
	noStartup := true
	for _, ctr := range c.pod.Spec.Containers {
		if ctr.LivenessProbe != nil && ctr.StartupProbe != nil {
			noStartup = false
		}
	}
	if noStartup {
		h.score += 25
	}
	return h, true
}

// slowPull matches a pull the kubelet started and has not finished.
func slowPull(c *podCtx) (hit, bool) {
	if c.state != "ContainerCreating" {
		return hit{}, false
	}
	pulling := map[string]Evidence{}
	for _, e := range c.evidence {
		if e.Source != "event" {
			continue
		}
		img := quoted(e.Message)
		switch e.Reason {
		case "Pulling":
			pulling[img] = e
		case "Pulled", "Failed", "BackOff":
			delete(pulling, img)
		}
	}
	var ev []Evidence
	score := 60
	for img, e := range pulling {
		ev = append(ev, e)
		if b, large := c.model.LargeImage(img); large {
			score = 85
			ev = append(ev, Evidence{Source: "node", Message: "image " + img + " is a " + b.Name + " image of about " + b.Size()})
		}
	}
	h, ok := found(score, ev)
	return h, ok
}

func quoted(msg string) string {
	if i := strings.IndexByte(msg, '"'); i >= 0 {
		if j := strings.IndexByte(msg[i+1:], '"'); j >= 0 {
			return msg[i+1 : i+1+j]
		}
	}
	return ""
}
