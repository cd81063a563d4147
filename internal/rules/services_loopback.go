package rules

import (
	"fmt"
	"regexp"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
	"github.com/winkube/winkube/internal/winsupport"
)

// LoopbackListenRE matches a command-line argument that sets a listen or
// bind address to the loopback interface: --telemetry.addr=127.0.0.1:9100,
// --listen-address=localhost:8080, --bind-addr=[::1]:443. The port is the
// last submatch. The exported policies use the same expression.
const LoopbackListenRE = `^--?[A-Za-z0-9._-]*(?:listen|bind|addr|address)[A-Za-z0-9._-]*=(?:127\.0\.0\.1|localhost|\[::1\]):([0-9]{1,5})$`

var loopbackListen = regexp.MustCompile(LoopbackListenRE)

// LoopbackPortMsg is windows-container-port-loopback's message: the
// container, the argument and the port.
const LoopbackPortMsg = "container %q listens on the pod's loopback (%s) but declares containerPort %s: a hostPort, a Service or a scrape reaches the pod's IP, where nothing listens"

// WindowsContainerPortLoopback: a declared port bound to the loopback.
var WindowsContainerPortLoopback = &rule.Rule{
	ID:       "windows-container-port-loopback",
	Title:    "Windows container listens on loopback on the port it declares",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports, on Windows workloads that are not HostProcess and do not use the host network, a container whose command or args set a listen or bind address (a flag whose name has listen, bind, addr or address in it) to 127.0.0.1, localhost or [::1] on a port the same container declares as a containerPort.",
		Why:  "A Windows pod has its own network compartment: traffic sent to the pod, through a hostPort, a Service or a metrics scrape, arrives at the pod's IP address. A server bound to the loopback address accepts only connections from inside the pod, so the declared port is dead from everywhere else: the hostPort or Service answers with connection refused and scrapes fail.",
		Fix:  "Listen on all addresses (0.0.0.0:PORT or :PORT), or, if the port is meant to stay private, remove it from ports so nothing tries to reach it.",
		Sources: []string{
			"https://kubernetes.io/docs/concepts/services-networking/ (every Pod gets its own IP address; Services and hostPorts deliver to it)",
			"https://kubernetes.io/docs/concepts/windows/intro/#networking (Windows pods get their own network compartment from the CNI plugin)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !p.Target.Is(target.Windows) || p.Target.HostProcess || p.Workload.Spec.HostNetwork {
			return
		}
		winsupport.VisitContainers(p.Workload.Spec, p.Workload.SpecPath, func(c *corev1.Container, cp *field.Path) {
			declared := map[string]bool{}
			for _, port := range c.Ports {
				declared[strconv.Itoa(int(port.ContainerPort))] = true
			}
			if len(declared) == 0 {
				return
			}
			check := func(list []string, path *field.Path) {
				for i, a := range list {
					m := loopbackListen.FindStringSubmatch(a)
					if m == nil || !declared[m[1]] {
						continue
					}
					p.Report(rule.Finding{Path: rule.Path(path.Index(i)),
						Message: fmt.Sprintf(LoopbackPortMsg, c.Name, a, m[1]),
						Hint:    "listen on 0.0.0.0:" + m[1] + " (or :" + m[1] + "); only processes inside the pod can reach its loopback"})
				}
			}
			check(c.Command, cp.Child("command"))
			check(c.Args, cp.Child("args"))
		})
	},
}
