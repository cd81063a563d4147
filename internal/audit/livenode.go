package audit

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
)

// NodeConfigCheck checks a live kubelet configuration with the node
// rules of nodeconfig validate. The CLI wires nodeconfig in; audit does
// not import it (it brings the kubelet's config types and their
// dependencies, see internal/depcheck).
type NodeConfigCheck struct {
	// Rules are the rules Check reports, for the report's rule list.
	Rules []*rule.Rule
	// Check runs them over the kubeletconfig object of one node's
	// /configz; name stands for the file, build is the node's Windows
	// build number (0 when unknown).
	Check func(name string, configz []byte, build int) ([]rule.Finding, error)
}

const srcKubeletAuth = "kubernetes/kubernetes v1.36.3 pkg/kubelet/server/auth.go (GetRequestAttributes: /configz is nodes/configz, /stats is nodes/stats, /logs is nodes/log, else nodes/proxy)"

var kubeletUnreadable = &rule.Rule{ID: "kubelet-unreadable", Title: "A Windows node's kubelet API could not be read", Severity: rule.Warning, Category: CategoryAccess, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "An endpoint of a Windows node's kubelet (`/configz`, `/stats/summary`, `/logs/`) that the audit or doctor asked for, with `--node-reads`, did not answer usefully: a missing permission (named in the hint), a 404 or 405 (the handler is off in the kubelet's configuration), no answer in time, an answer too large, or malformed JSON.",
		Why:     "What depends on that endpoint is left out for that node: without `/configz` the live configuration rules and the drift check skip it, without `/stats/summary` its memory and disk are not judged, without `/logs/` neither doctor nor the node-log rules can match node causes on its logs. The run goes on for the other nodes.",
		Fix:     "Grant what the hint names: directly to the kubelet, `get` on `nodes/configz`, `nodes/stats` and `nodes/log` (the ClusterRole winkube-audit in deploy/audit-rbac.yaml); through the API server (`--node-reads=proxy`), `get` on `nodes/proxy` (deploy/audit-node-proxy-rbac.yaml, opt-in). For a 404 on /configz set `enableDebuggingHandlers: true`; for a 405 on /logs/ set `enableSystemLogHandler: true` and `enableSystemLogQuery: true`.",
		Sources: []string{srcKubeletAuth, "kubernetes.io/docs/reference/access-authn-authz/kubelet-authn-authz (Kubelet authorization, fine-grained authorization)", "kubernetes/kubernetes v1.36.3 pkg/kubelet/server/server.go (InstallSystemLogHandler: logs endpoint is disabled.)"},
	},
	Run: NodeRun(func(f *Facts, e emitter) {
		path := ""
		if a := f.Snapshot.KubeletAccess; a != nil {
			path = a.Path
		}
		for _, k := range f.Snapshot.Kubelets {
			for _, u := range k.Unread {
				hint := "see the message; the run went on without it"
				if u.Permission != "" {
					hint = "grant " + u.Permission + " to the identity the audit runs as"
					if u.Permission == "get nodes/proxy" {
						hint += " (deploy/audit-node-proxy-rbac.yaml: close to node admin, opt in knowingly)"
					} else {
						hint += " (deploy/audit-rbac.yaml)"
					}
				}
				e.report(&manifest.Object{APIVersion: "v1", Kind: "Node", Name: k.Node}, "", fmt.Sprintf("cannot read %s of node %s's kubelet (%s): %s", u.Endpoint, k.Node, path, u.Err), hint)
			}
		}
	}),
}

// liveConfig runs the node configuration rules over each Windows node's
// live kubelet configuration, reporting against the Node. The settings
// apply as they do to nodeconfig validate: a rule turned off reports
// nothing, a re-graded one reports at its configured severity.
func liveConfig(f *Facts, c *NodeConfigCheck, settings *rule.Settings) []rule.Finding {
	applied := map[string]*rule.Rule{}
	for _, r := range c.Rules {
		applied[r.ID] = settings.Apply(r)
	}
	var out []rule.Finding
	for _, k := range f.Snapshot.Kubelets {
		n := f.Snapshot.Node(k.Node)
		if k.Config == nil || n == nil {
			continue
		}
		name := "node/" + k.Node + "/configz"
		fs, err := c.Check(name, k.Config, buildNumber(n))
		if err != nil {
			out = append(out, rule.Finding{Rule: kubeletUnreadable.ID, Severity: kubeletUnreadable.Severity, Object: nodeObject(n),
				Message: fmt.Sprintf("cannot check /configz of node %s's kubelet: %v", k.Node, err)})
			continue
		}
		for _, fd := range fs {
			if r, known := applied[fd.Rule]; known {
				if r == nil {
					continue // off
				}
				if r.Configured != rule.Unset {
					fd.Severity = r.Configured
				}
			}
			fd.Object, fd.File, fd.Line, fd.Column = nodeObject(n), "", 0, 0
			fd.Message = fmt.Sprintf("node %s (live /configz): %s", k.Node, fd.Message)
			out = append(out, fd)
		}
	}
	return out
}

// buildNumber is the node's Windows build number, 0 when unknown.
func buildNumber(n *corev1.Node) int {
	parts := strings.Split(cluster.NodeBuild(n), ".")
	if len(parts) < 3 {
		return 0
	}
	var v int
	fmt.Sscanf(parts[2], "%d", &v)
	return v
}

const srcEvictionWindows = "kubernetes/kubernetes v1.36.3 pkg/kubelet/eviction/defaults_windows.go (DefaultEvictionHard: memory.available 500Mi, nodefs.available 10%, imagefs.available 15%)"

var windowsNodeMemoryPressure = &rule.Rule{ID: "windows-node-memory-pressure", Title: "A Windows node's working set is above its allocatable memory", Severity: rule.Warning, Category: CategoryCapacity, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "The kubelet's `/stats/summary` of a Windows node reports a node memory working set above the node's allocatable memory, or less memory available than the Windows kubelet's default hard eviction threshold (500Mi).",
		Why:     "Windows cannot enforce allocatable (no cgroups): what is above allocatable is taken from the reserve meant for the OS, the kubelet and the runtime. Windows has no OOM killer; a node out of memory pages to disk, slows down and goes NotReady before the kubelet evicts anything.",
		Fix:     "Set memory limits on the node's pods (requests equal to limits for the large ones), move workloads away, or use larger nodes; keep at least 2Gi in systemReserved/kubeReserved.",
		Sources: []string{"kubernetes.io/docs/concepts/configuration/windows-resource-management (Memory management: Windows does not have an out-of-memory process killer)", "k8s.io/kubelet v0.36.3 pkg/apis/stats/v1alpha1/types.go (NodeStats.Memory.WorkingSetBytes, AvailableBytes)", srcEvictionWindows},
	},
	Run: nodeStats(func(n *corev1.Node, s *live.NodeStats, e emitter) {
		if s.MemoryWorkingSetBytes == nil {
			return
		}
		if msg := live.MemoryPressure(n, s); msg != "" {
			e.report(nodeObject(n), "status.allocatable.memory", msg, "kubectl top pods -A --sort-by=memory --field-selector spec.nodeName="+n.Name)
		}
	}),
}

// evictionMemory is the Windows kubelet's default memory.available hard
// eviction threshold.

var windowsNodeDiskPressure = &rule.Rule{ID: "windows-node-disk-pressure", Title: "A Windows node's disk is nearly at the kubelet's eviction threshold", Severity: rule.Warning, Category: CategoryCapacity, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "The kubelet's `/stats/summary` of a Windows node reports less than 15% of the node filesystem free, or less than 20% of the image filesystem: within 5 points of the kubelet's hard eviction thresholds (nodefs.available 10%, imagefs.available 15%).",
		Why:     "Windows container images are large (servercore is several GiB); a node that crosses the threshold evicts pods and garbage-collects images, and pulls of new images fail until space is freed.",
		Fix:     "Free space (prune unused images with crictl rmi --prune on the node), grow the disk, or lower imageGCHighThresholdPercent so images are collected earlier.",
		Sources: []string{srcEvictionWindows, "k8s.io/kubelet v0.36.3 pkg/apis/stats/v1alpha1/types.go (NodeStats.Fs, RuntimeStats.ImageFs)"},
	},
	Run: nodeStats(func(n *corev1.Node, s *live.NodeStats, e emitter) {
		for _, d := range []struct {
			name        string
			avail, capa *uint64
			warnBelow   float64
		}{{"node filesystem", s.FsAvailableBytes, s.FsCapacityBytes, 15}, {"image filesystem", s.ImageFsAvailableBytes, s.ImageFsCapacityBytes, 20}} {
			if d.avail == nil || d.capa == nil || *d.capa == 0 {
				continue
			}
			pct := 100 * float64(*d.avail) / float64(*d.capa)
			if pct < d.warnBelow {
				e.report(nodeObject(n), "", fmt.Sprintf("Windows node %s: %s has %.1f%% free (%s of %s), under %.0f%%", n.Name, d.name, pct,
					live.GiB(*resource.NewQuantity(int64(*d.avail), resource.BinarySI)), live.GiB(*resource.NewQuantity(int64(*d.capa), resource.BinarySI)), d.warnBelow),
					"on the node: crictl rmi --prune")
			}
		}
	}),
}
