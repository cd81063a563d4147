package rules

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
	"github.com/winkube/winkube/internal/winsupport"
)

// WindowsDNSPartialName: a Service name with a dot that is not fully
// qualified, which Windows does not expand.
var WindowsDNSPartialName = &rule.Rule{
	ID:       "windows-dns-partial-name",
	Title:    "Windows workload names a Service by a partially qualified name",
	Severity: rule.Error,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports, in a Windows workload's container command, args, env values, exec probes and exec lifecycle hooks, host names of the form service.namespace.svc (always a Service name) and service.namespace where the input holds that Service in that namespace, or the API server's kubernetes.default. Names in URLs, host:port pairs and connection strings are found; a path segment (/orders.v1.svc) is not a host and is skipped, and so are httpGet and tcpSocket hosts, which the kubelet resolves on the node, not the pod. Linux workloads are not checked: their resolver expands these names through its search list.",
		Why:  "A Windows pod has one DNS suffix, the one of its namespace (shop.svc.cluster.local), and treats every name with a dot as fully qualified, so it does not try the suffix. From a Windows pod backend and backend.shop.svc.cluster.local resolve, but backend.shop and backend.shop.svc do not, while the same manifest works on Linux.",
		Fix:  "Write the fully qualified name with the cluster's domain (service.namespace.svc.cluster.local, or the profile's clusterDomain); winkube fix does, as a safe fix when the cluster profile names its clusterDomain. A Service in the pod's own namespace can also be named without a dot.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/dns-pod-service, DNS resolution on Windows nodes (Windows treats all names with a . as a FQDN; one DNS suffix, that of the pod's namespace; kubernetes.default and kubernetes.default.svc do not resolve)",
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Network modes (Pod → Service (PQDN, but only if there are no \".\"))",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) {
			return
		}
		domain := p.Cluster.Domain()
		safe := p.Cluster.ClusterDomain != ""
		visitHostStrings(p.Workload.Spec, p.Workload.SpecPath, func(path *field.Path, where, value string) {
			names := svcname.PartialNames(value, domain)
			if len(names) == 0 {
				return
			}
			f := rule.Finding{Path: rule.Path(path)}
			p.Later(f, func(in *rule.Evidence, f *rule.Finding) bool {
				var kept []svcname.Name
				for _, n := range names {
					if n.Always || in.Services[rule.ServiceKey(n.Namespace, n.Service)] {
						kept = append(kept, n)
					}
				}
				if len(kept) == 0 {
					return false
				}
				fixed, named := value, make([]string, 0, len(kept))
				for i := len(kept) - 1; i >= 0; i-- {
					n := kept[i]
					fixed = fixed[:n.Start] + n.FQDN + fixed[n.End:]
				}
				for _, n := range kept {
					named = append(named, fmt.Sprintf("%q (use %s)", n.Name, n.FQDN))
				}
				f.Message = fmt.Sprintf("%s names %s: a Windows pod treats a name with a dot as fully qualified and has only its namespace's DNS suffix, so the name does not resolve", where, strings.Join(named, ", "))
				f.Hint = "write the fully qualified Service name with the cluster domain " + domain
				f.Fix = &rule.Fix{Title: "use the fully qualified Service name", Safe: safe, Edits: []rule.Edit{{Op: rule.Set, Path: f.Path, Value: fixed}}}
				return true
			})
		})
	},
}

type hostVisitor func(path *field.Path, where, value string)

// visitList calls fn with each item of a list of strings.
func visitList(at *field.Path, where string, items []string, fn hostVisitor) {
	for i, s := range items {
		fn(at.Index(i), where, s)
	}
}

// visitHostStrings calls fn with every string of the pod spec's
// containers where a host name of a connection may be written.
func visitHostStrings(spec *corev1.PodSpec, specPath *field.Path, fn hostVisitor) {
	winsupport.VisitContainers(spec, specPath, func(c *corev1.Container, cp *field.Path) {
		in := fmt.Sprintf("container %q", c.Name)
		visitList(cp.Child("command"), "the command of "+in, c.Command, fn)
		visitList(cp.Child("args"), "the args of "+in, c.Args, fn)
		for i, e := range c.Env {
			if e.Value != "" {
				fn(cp.Child("env").Index(i).Child("value"), fmt.Sprintf("env %s of %s", e.Name, in), e.Value)
			}
		}
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
			if pr.probe == nil {
				continue
			}
			at, where := cp.Child(pr.name), fmt.Sprintf("the %s of %s", pr.name, in)
			visitExec(pr.probe.Exec, at, where, fn)
		}
		if c.Lifecycle != nil {
			for _, h := range []struct {
				name    string
				handler *corev1.LifecycleHandler
			}{{"postStart", c.Lifecycle.PostStart}, {"preStop", c.Lifecycle.PreStop}} {
				if h.handler != nil {
					visitExec(h.handler.Exec, cp.Child("lifecycle", h.name), fmt.Sprintf("the %s hook of %s", h.name, in), fn)
				}
			}
		}
	})
}

// visitExec visits an exec handler's command. httpGet and tcpSocket hosts
// are left out: the kubelet connects to them from the node, with the
// node's resolver, not the pod's.
func visitExec(exec *corev1.ExecAction, at *field.Path, where string, fn hostVisitor) {
	if exec != nil {
		visitList(at.Child("exec", "command"), where, exec.Command, fn)
	}
}
