package audit

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/live"
	"github.com/winkube/winkube/internal/rule"
)

// NodeRun is an audit node rule's run function (its rule.Rule's Run): a
// check over the cluster's nodes, run once per audit over Facts.
type NodeRun func(f *Facts, e emitter)

// Family says package audit runs it.
func (NodeRun) Family() rule.Family { return rule.FamilyAudit }

// Areas of the readiness summary.
const (
	AreaNodes     = "nodes"
	AreaPlacement = "placement"
	AreaImages    = "images"
	AreaSecurity  = "security"
	AreaCapacity  = "capacity"
)

// Categories of the audit's own rules.
const (
	CategoryNodes    rule.Category = "nodes"
	CategoryCapacity rule.Category = "capacity"
	CategoryAccess   rule.Category = "access"
)

// NodeRules returns the node rules, in catalogue order; each carries its
// Run.
func NodeRules() []*rule.Rule {
	return slices.Concat([]*rule.Rule{
		windowsNodeUntainted,
		windowsNodeBuildLabelMissing,
		windowsNodeBuildLabelMismatch,
		windowsNodeUnsupportedBuild,
		windowsNodeLowReserve,
		windowsNodeContainerdOld,
		kubeletVersionSkew,
		hybridTooFewNodes,
		linuxPodOnWindowsNode,
		windowsPodOnLinuxNode,
		windowsNodeNotReady,
		windowsNodeConfigDrift,
		windowsNodeMemoryPressure,
		windowsNodeDiskPressure,
	}, nodeLogRules, []*rule.Rule{kubeletUnreadable})
}

// Rules returns every rule an audit can report: the node rules, the
// audit's own rules for permissions and the simulation, then the lint
// rules given.
func Rules(lint []*rule.Rule) []*rule.Rule {
	var out []*rule.Rule
	out = append(out, NodeRules()...)
	out = append(out, PermissionDenied, WorkloadPending, WorkloadStartFailure)
	return append(out, lint...)
}

// PermissionDenied reports a kind the audit may not list.
var PermissionDenied = &rule.Rule{
	ID: "permission-denied", Title: "The audit may not list a kind it reads", Severity: rule.Warning, Category: CategoryAccess, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "A kind winkube reads (nodes, pods, workloads, RuntimeClasses, Services, events) could not be listed with the credentials in use.",
		Why:     "Whatever depends on that kind is left out of the report: without nodes no node rule runs, without events doctor cannot explain a pod.",
		Fix:     "Grant get, list and watch on the kind, as the ClusterRole winkube-audit in deploy/audit-rbac.yaml does.",
		Sources: []string{"Kubernetes RBAC documentation (kubernetes.io/docs/reference/access-authn-authz/rbac)"},
	},
}

// WorkloadPending reports a pod the simulation leaves Pending.
var WorkloadPending = &rule.Rule{
	ID: "workload-pending", Title: "A workload's pod cannot be scheduled on the live nodes", Severity: rule.Error, Category: rule.Placement, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "The simulation, run on the live nodes with the running pods already placed, leaves a pending pod of the workload unscheduled; the message is kube-scheduler's FailedScheduling message for the model's Kubernetes version.",
		Why:     "In a hybrid cluster a pod stays Pending when it does not tolerate the Windows taint, selects an OS or build no node has, or no node of its OS has room.",
		Fix:     "Follow the explanation: pin the pod to the right OS, add the toleration, or add nodes of that OS.",
		Sources: []string{"k8s.io/kubernetes v1.36.3 pkg/scheduler (FailedScheduling messages)", "https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host (taints and tolerations)"},
	},
}

// WorkloadStartFailure reports a bound pod the kubelet would not start.
var WorkloadStartFailure = &rule.Rule{
	ID: "workload-start-failure", Title: "A workload's pod is bound to a node whose kubelet cannot start it", Severity: rule.Error, Category: rule.Images, Family: rule.FamilyAudit,
	Doc: rule.Doc{
		What:    "A pod that is not running is bound to a node where the simulation predicts the kubelet refuses it or the runtime cannot start it (OS or build mismatch, Linux image on Windows).",
		Why:     "Windows nodes run only images built for their OS and, under process isolation, their exact build.",
		Fix:     "Use an image for the node's OS and build (a multi-arch manifest list covers several) and pin the pod to them.",
		Sources: []string{"https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility (runbook: image OS mismatch)", "k8s.io/kubernetes v1.36.3 pkg/kubelet/lifecycle/predicate.go"},
	},
}

// windowsNodes is the run of a rule that judges each Windows node on its
// own.
func windowsNodes(check func(f *Facts, n *corev1.Node, e emitter)) NodeRun {
	return func(f *Facts, e emitter) {
		for _, n := range f.Snapshot.Nodes {
			if Windows(n) {
				check(f, n, e)
			}
		}
	}
}

// nodeStats is the run of a rule that judges each node whose kubelet's
// /stats/summary was read.
func nodeStats(check func(n *corev1.Node, s *live.NodeStats, e emitter)) NodeRun {
	return func(f *Facts, e emitter) {
		for _, k := range f.Snapshot.Kubelets {
			if n := f.Snapshot.Node(k.Node); n != nil && k.Stats != nil {
				check(n, k.Stats, e)
			}
		}
	}
}
