package rules

import (
	"fmt"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
)

// Default NodePort range of kube-apiserver's --service-node-port-range
// (k8s.io/kubernetes v1.36.3 pkg/kubeapiserver/options/options.go
// DefaultServiceNodePortRange).
const NodePortMin, NodePortMax = 30000, 32767

// LoopbackNodePortRE finds a loopback host with a port: localhost:30080,
// 127.0.0.1:30080, [::1]:30080, and PowerShell's
// Test-NetConnection localhost -Port 30080.
const LoopbackNodePortRE = `(?i)(?:^|[^\w.-])(localhost|127\.0\.0\.1|\[::1\])(?::|\s+-port[:\s]\s*)(\d{5})\b`

var loopbackPort = regexp.MustCompile(LoopbackNodePortRE)

// NodePortFromNodeMsg is windows-nodeport-from-node's message: where,
// the loopback host as written and the port.
const NodePortFromNodeMsg = "%s connects to %s:%d, a NodePort on the HostProcess container's own node; Windows does not support NodePort access from the node itself"

// WindowsNodePortFromNode: a HostProcess container, which runs in the
// node's network, connecting to a NodePort on its own node.
var WindowsNodePortFromNode = &rule.Rule{
	ID:       "windows-nodeport-from-node",
	Title:    "HostProcess container connects to a NodePort on its own Windows node",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: fmt.Sprintf("Reports, in a Windows HostProcess workload's command, args, env values, exec probes and exec hooks, connections to localhost, 127.0.0.1 or [::1] at a port in the default NodePort range (%d-%d). HostProcess containers run in the node's network, so such a connection is NodePort access from the node itself. Pods that are not HostProcess are not reported: their localhost is their own.", NodePortMin, NodePortMax),
		Why:  "Windows nodes do not support local NodePort access from the node itself; it works from other nodes and from external clients. A node agent or health check that reaches a Service through localhost:<nodePort> works on Linux nodes and times out on Windows nodes.",
		Fix:  "Reach the Service through its cluster IP or DNS name (HostProcess containers can use cluster DNS only through the node's resolver, so the cluster IP is the dependable choice), or through another node's address.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Limitations (local NodePort access from the node itself is not supported; it works for other nodes or external clients)",
			"kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod, When should I use a Windows HostProcess container? (HostProcess containers have access to the host's network interfaces and IP addresses; hostNetwork must be true)",
			"k8s.io/kubernetes v1.36.3 pkg/kubeapiserver/options/options.go (DefaultServiceNodePortRange 30000-32767)",
		},
	},
	Workload: func(p *rule.Pass) {
		if !windowsBound(p) || !p.Target.HostProcess {
			return
		}
		svcname.Visit(p.Workload.Spec, p.Workload.SpecPath, func(path *field.Path, where, value string) {
			for _, m := range loopbackPort.FindAllStringSubmatch(value, -1) {
				port, _ := strconv.Atoi(m[2])
				if port < NodePortMin || port > NodePortMax {
					continue
				}
				p.Report(rule.Finding{Path: rule.Path(path),
					Message: fmt.Sprintf(NodePortFromNodeMsg, where, m[1], port),
					Hint:    "reach the Service through its cluster IP instead of the node's own NodePort"})
				return
			}
		})
	},
}
