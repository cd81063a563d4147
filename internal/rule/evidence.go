package rule

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/winsupport"
)

// Evidence is what the engine learns of the whole input once every object
// has been read, for a rule to weigh where the cluster profile is only
// assumed. The engine derives it once per run; rules read it through
// Pass.Later. A single object (the webhook's, a one-document input) is
// never evidence about itself: it can follow a convention, not set one
// for others.
type Evidence struct {
	// WindowsWorkloads counts the input's workloads for Windows.
	WindowsWorkloads int
	// WindowsTaint is the Windows taint convention the input's own
	// Windows workloads follow, nil when there is none (see the engine for
	// the rule that decides it).
	WindowsTaint *Convention
	// Services holds ServiceKey of every Service in the input.
	Services map[string]bool
	// HostProcessBuilds holds, for each HostProcess DaemonSet of the
	// input, the Windows builds it allows (nil: any), keyed by the
	// AgentKey of its pod spec: a node agent shipped as one DaemonSet per
	// Windows build is judged as a whole.
	HostProcessBuilds map[string][][]string
}

// AgentKey names the program a pod spec runs by its containers' image
// repositories (winsupport.Repository: tags and digests dropped), sorted
// and joined by spaces: the DaemonSets of one agent, one per Windows build,
// share it.
func AgentKey(spec *corev1.PodSpec) string {
	var repos []string
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			if r := winsupport.Repository(c.Image); !slices.Contains(repos, r) {
				repos = append(repos, r)
			}
		}
	}
	slices.Sort(repos)
	return strings.Join(repos, " ")
}

// ServiceKey is how Evidence.Services names a Service: "namespace/name",
// with the namespace an object without one is created in.
func ServiceKey(namespace, name string) string {
	if namespace == "" {
		namespace = "default"
	}
	return namespace + "/" + name
}

// Convention is a Windows taint convention and how many of the input's
// Windows workloads tolerate it.
type Convention struct {
	Taint      corev1.Taint
	Tolerating int
}

// Decide settles a finding held by Pass.Later once the input is read: it
// may rewrite the message, hint, fix and severity (the path is located
// already) and returns false to drop the finding.
type Decide func(in *Evidence, f *Finding) bool

// Later reports f once the whole input has been read, if decide keeps it.
// A Decide must keep only what it needs of the object (a few fields), not
// the object: the run holds it until the end.
func (p *Pass) Later(f Finding, decide Decide) {
	f.Rule = p.Rule.ID
	f.Object = p.Object
	if p.Defer == nil {
		// Nothing to wait for (one object validated on its own): no
		// evidence beyond the object itself.
		if decide(&Evidence{}, &f) {
			f.Severity = p.Rule.SeverityOf(f)
			p.Emit(f)
		}
		return
	}
	p.Defer(f, decide)
}
