package rules

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/svcname"
	"github.com/winkube/winkube/internal/winsupport"
)

// ICMPOutboundMsg is windows-icmp-outbound's message: where, the ping
// command as written, its target, then the first Windows pool whose CNI
// drops outbound ICMP and that CNI as the profile writes it.
const ICMPOutboundMsg = "%s runs %s %s: Windows pool %q (cni %s) drops ICMP replies from outside the pod network, so the ping never succeeds there"

// CommandWordRE matches the words outboundPing reads a command line as:
// runs of anything but blanks, newlines and the shell's separators and
// quotes.
const CommandWordRE = `[^ \t\n;|&"'(){}]+`

var commandWord = regexp.MustCompile(CommandWordRE)

// WindowsICMPOutbound: a ping out of the pod network, which the Windows
// data plane does not route back.
var WindowsICMPOutbound = &rule.Rule{
	ID:       "windows-icmp-outbound",
	Title:    "Windows container pings a host outside the cluster on a CNI that drops outbound ICMP",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: "Reports ping, ping.exe, Test-Connection and Test-NetConnection without -Port or -CommonTCPPort in a Windows workload's command, args, exec probes and exec lifecycle hooks when the target is outside the cluster (a public IP address, or a name with a dot that is not a cluster name ending in .svc.<cluster domain> or .local), and a Windows pool of the cluster profile uses win-bridge, win-overlay, flannel (which delegates to them) or Azure CNI. Pings to pods, Services and private addresses are not reported: ICMP within the pod network works. HostProcess workloads are not reported either: they run in the node's network, with no pod endpoint on the CNI's data plane, so their pings leave as the node's.",
		Why:  "The Windows data plane (VFP) does not translate ICMP packets, so with these plugins an ICMP echo that leaves the pod network (to the internet, say) gets no answer back to the pod, while TCP and UDP to the same host work. A liveness or readiness probe that pings an outside host then fails for ever, and a start script that waits for the ping never goes on.",
		Fix:  "Check connectivity over TCP instead: Test-NetConnection <host> -Port 443, or curl.exe / Invoke-WebRequest against the service you need.",
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Limitations (outbound communication using ICMP via win-overlay, win-bridge or Azure-CNI; substitute ping <destination> with curl <destination>)",
			"containerd/containerd v2.1.4 internal/cri/server/sandbox_run.go (no pod network is set up for a host-network sandbox, which a HostProcess sandbox is)",
		},
	},
	Workload: func(p *rule.Pass) {
		// A HostProcess pod has no pod network endpoint (containerd sets
		// up none for it): its ICMP is the node's, which VFP does not
		// translate.
		if !windowsBound(p) || p.Target.HostProcess {
			return
		}
		pool, ok := icmpDroppingPool(p)
		if !ok {
			return
		}
		domain := p.Cluster.Domain()
		visitCommands(p.Workload.Spec, p.Workload.SpecPath, func(l commandLine) {
			cmd, target, ok := outboundPing(l.argv, domain)
			if !ok {
				return
			}
			p.Report(rule.Finding{Path: rule.Path(l.path),
				Message: fmt.Sprintf(ICMPOutboundMsg, l.where, cmd, target, pool.Name, pool.CNI),
				Hint:    fmt.Sprintf("check over TCP instead: Test-NetConnection %s -Port <port>, or curl.exe", target)})
		})
	},
}

// icmpDroppingPool is the first Windows pool whose CNI is documented to
// drop outbound ICMP.
func icmpDroppingPool(p *rule.Pass) (cluster.Pool, bool) {
	for _, pool := range p.Cluster.PoolsOf("windows") {
		if pool.DropsOutboundICMP() {
			return pool, true
		}
	}
	return cluster.Pool{}, false
}

// commandLine is one command line of a container: its own command and
// args together, an exec probe's or an exec hook's.
type commandLine struct {
	path  *field.Path // the list: command (args when the container has none), or the probe's or hook's exec.command
	where string      // for messages: svcname.WhereContainer, WhereProbe or WhereHook
	argv  []string
	own   bool // the container's own command and args
	args  bool // own, with no command: the image's entrypoint runs the args
}

// visitCommands calls fn with each command line of the containers, in
// svcname.Visit's order: command and args together, then each exec probe
// and exec hook.
func visitCommands(spec *corev1.PodSpec, specPath *field.Path, fn func(commandLine)) {
	winsupport.VisitContainers(spec, specPath, func(c *corev1.Container, cp *field.Path) {
		in := fmt.Sprintf(svcname.WhereContainer, c.Name)
		if len(c.Command)+len(c.Args) > 0 {
			l := commandLine{path: cp.Child("command"), where: in, argv: append(append([]string(nil), c.Command...), c.Args...), own: true}
			if len(c.Command) == 0 {
				l.path, l.args = cp.Child("args"), true
			}
			fn(l)
		}
		for _, pr := range []struct {
			name  string
			probe *corev1.Probe
		}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
			if pr.probe != nil && pr.probe.Exec != nil {
				fn(commandLine{path: cp.Child(pr.name, "exec", "command"), where: fmt.Sprintf(svcname.WhereProbe, pr.name, in), argv: pr.probe.Exec.Command})
			}
		}
		if c.Lifecycle != nil {
			for _, h := range []struct {
				name    string
				handler *corev1.LifecycleHandler
			}{{"postStart", c.Lifecycle.PostStart}, {"preStop", c.Lifecycle.PreStop}} {
				if h.handler != nil && h.handler.Exec != nil {
					fn(commandLine{path: cp.Child("lifecycle", h.name, "exec", "command"), where: fmt.Sprintf(svcname.WhereHook, h.name, in), argv: h.handler.Exec.Command})
				}
			}
		}
	})
}

// outboundPing finds an ICMP ping in a command line and returns the
// command and its target when the target is outside the cluster.
func outboundPing(argv []string, domain string) (cmd, target string, ok bool) {
	words := commandWord.FindAllString(strings.Join(argv, " "), -1)
	for i, w := range words {
		name := lowerASCII(w)
		if j := strings.LastIndexAny(name, `/\`); j >= 0 {
			name = name[j+1:]
		}
		switch name {
		case "ping", "ping.exe", "test-connection", "test-netconnection":
		default:
			continue
		}
		t := pingTarget(words[i+1:])
		if name == "test-netconnection" && asksPort(words[i+1:]) {
			continue
		}
		if t != "" && outsideCluster(t, domain) {
			return w, t, true
		}
	}
	return "", "", false
}

// asksPort: Test-NetConnection connects over TCP when given a port.
func asksPort(args []string) bool {
	for _, a := range args {
		if l := lowerASCII(a); l == "-port" || l == "-commontcpport" || strings.HasPrefix(l, "-port:") {
			return true
		}
	}
	return false
}

// pingTarget is the first argument that is not an option or an option's
// value.
func pingTarget(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch l := lowerASCII(a); {
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "/"):
			// Windows ping's /n 1, Linux ping's -c 1, -ComputerName x:
			// an option with a value takes the next word.
			if i+1 < len(args) && (isNumber(args[i+1]) || l == "-computername" || l == "-targetname") {
				if l == "-computername" || l == "-targetname" {
					return args[i+1]
				}
				i++
			}
		case isNumber(a):
		default:
			return a
		}
	}
	return ""
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// outsideCluster: a public IP address, or a name with a dot that is not a
// cluster or .local name. An address with a zone or an IPv4-mapped IPv6
// address is not read as one (and, having colons, is no name either): the
// Kubernetes CEL library's isIP refuses both (k8s.io/apiserver v0.36.3
// pkg/cel/library/ip.go parseIPAddr), and the exported policy decides as
// lint does.
func outsideCluster(t, domain string) bool {
	if a, err := netip.ParseAddr(t); err == nil {
		return a.Zone() == "" && !a.Is4In6() && a.IsGlobalUnicast() && !a.IsPrivate()
	}
	t = lowerASCII(strings.TrimSuffix(t, "."))
	if !strings.Contains(t, ".") || strings.HasPrefix(t, "$") || strings.Contains(t, "$(") {
		return false
	}
	labels := strings.Split(t, ".")
	if !svcname.Labels(labels) || isNumber(labels[len(labels)-1]) {
		return false
	}
	return !strings.HasSuffix(t, "."+domain) && !strings.HasSuffix(t, ".local") && !strings.HasSuffix(t, ".svc") && !strings.HasSuffix(t, ".internal")
}

// lowerASCII lowers A-Z only, as CEL's lowerAscii does: a name or an
// option is ASCII, and the exported policy reads it the same way.
func lowerASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}
