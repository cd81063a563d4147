package simulate

import (
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/winsupport"
)

// Input is what a simulation reads.
type Input struct {
	Nodes          []*corev1.Node         // exact nodes (from a cluster file expansion, kubectl get nodes -o yaml, or a test)
	Pools          map[string]string      // node name -> pool name (optional; for per-pool summaries)
	Objects        []*manifest.Object     // workloads, RuntimeClasses, ... as loaded by the manifest package
	RuntimeClasses []*nodev1.RuntimeClass // known classes in addition to those in Objects
	Model          winsupport.Model
	Replicas       map[string]int32 // "Kind/name" or "Kind/namespace/name" -> replicas override

	// Max names workloads ("Kind/name" or "Kind/namespace/name") for which
	// the simulation also answers how many more replicas would fit.
	Max []string

	// NoKubelets models a control plane without kubelets, like the test
	// harness: a pod a kubelet would refuse to admit (PodOSNotSupported)
	// stays bound and keeps its node's resources instead of ending Failed.
	// StartFailure still says what a kubelet would do.
	NoKubelets bool

	// Stored says the Pods in Objects are a live cluster's, already
	// stored by its API server: they passed validation and admission when
	// they were created, so neither runs again, and winkube's own
	// validation cannot turn away a pod that exists. Other kinds (a
	// workload whose headroom --max asks for) are still validated: their
	// new pods would meet admission.
	Stored bool

	// Images, when set, gives the kubelet phase the registry's platforms of
	// each image instead of what its tag implies (--resolve-images).
	Images rule.ImageLookup

	// Seed, when set, breaks ties between the best-scored nodes at random
	// with this seed, as a scheduler whose parallel filtering finished in
	// another order would, and where the search may stop early (from 100
	// nodes) draws which nodes those parallel filters found first
	// (racedOrder); nil models the scheduler's order exactly (feasible
	// nodes in the snapshot's zone-interleaved order, as with
	// parallelism 1).
	Seed *int64

	// TieRuns, without a Seed, is how many seeded runs estimate the
	// distribution when some pod's node was decided by a tie; their
	// per-node ranges fill NodeCount.Min and Max. 0 runs none.
	TieRuns int

	// FullScoring scores every pod with every score plugin and the
	// scheduler's node sampling even in clusters of 100 nodes or more,
	// where by default the faster bucket paths score by resources, node
	// affinity and taints only.
	FullScoring bool

	// Profile is the kube-scheduler profile the pods are scheduled with;
	// nil for the default profile.
	Profile *Profile

	// Cluster, when set, gives the Service dependency check the cluster
	// domain and what each pool's network plugin enforces.
	Cluster *cluster.Cluster

	// Memo, when set, shares the workloads' validation with the other
	// runs over the same objects that use it.
	Memo *Memo

	// NoDependencies leaves Result.Dependencies empty, for a caller that
	// does not read them (winkube plan).
	NoDependencies bool
}

// Result is the outcome of a simulation.
type Result struct {
	Version   string           // Kubernetes version modelled, e.g. "1.36"
	Pods      []PodResult      // in placement order
	Workloads []WorkloadResult // in input order
	Pools     []PoolUsage      // sorted by pool name
	Notes     []string         // where the model differs from the real scheduler for this input
	// Ties is how many pods were bound to one of several equally scored
	// best nodes: where the scheduler's parallel filters can make it
	// choose another.
	Ties int `json:"ties,omitempty"`
	// TieRuns is how many seeded runs gave the per-node ranges.
	TieRuns int `json:"tieRuns,omitempty"`
	// Dependencies are the Services the workloads placed on Windows pools
	// name in their configuration, and whether they reach them.
	Dependencies []Dependency `json:"dependencies,omitempty"`
}

// PodResult is what happened to one pod.
type PodResult struct {
	Workload      string   `json:"workload"` // Kind/namespace/name
	Namespace     string   `json:"namespace"`
	Pod           string   `json:"pod"`            // generated pod name, e.g. web-0 / web-<n>
	Node          string   `json:"node,omitempty"` // bound node, "" when rejected or pending
	Pool          string   `json:"pool,omitempty"` // pool of the bound node
	Rejected      bool     `json:"rejected,omitempty"`
	RejectMessage string   `json:"rejectMessage,omitempty"` // the API server's message verbatim
	Pending       bool     `json:"pending,omitempty"`
	Message       string   `json:"message,omitempty"` // FailedScheduling message verbatim for the model's Kubernetes version
	Explanation   []string `json:"explanation,omitempty"`
	Feasible      []string `json:"feasible,omitempty"`     // names of nodes that passed every filter, sorted
	StartFailure  string   `json:"startFailure,omitempty"` // what the kubelet would do after binding, "" if it starts
	NotModelled   []string `json:"notModelled,omitempty"`
	// Repeat is how many further pods of the workload this result stands
	// for: once a pod is refused or stays Pending, every later replica
	// meets the same cluster and gets the same answer, so a huge replica
	// count is reported without a result per pod.
	Repeat int `json:"repeat,omitempty"`
}

// Pods is how many pods the result stands for.
func (p PodResult) Pods() int { return 1 + p.Repeat }

// WorkloadResult summarises the pods of one workload.
type WorkloadResult struct {
	Workload string      `json:"workload"` // Kind/namespace/name
	File     string      `json:"file,omitempty"`
	Line     int         `json:"line,omitempty"`
	Replicas int         `json:"replicas"`         // pods generated
	Placed   []PoolCount `json:"placed,omitempty"` // bound pods per pool, sorted by pool
	Nodes    []NodeCount `json:"nodes,omitempty"`  // bound pods per node, sorted by node

	Rejected      int    `json:"rejected,omitempty"`
	RejectMessage string `json:"rejectMessage,omitempty"` // of the first rejected pod

	Pending        int      `json:"pending,omitempty"`
	PendingMessage string   `json:"pendingMessage,omitempty"` // of the first pending pod
	Explanation    []string `json:"explanation,omitempty"`    // of the first pending pod

	StartFailures int    `json:"startFailures,omitempty"`
	StartFailure  string `json:"startFailure,omitempty"` // of the first pod that fails at start

	NotModelled []string `json:"notModelled,omitempty"`

	// MoreFit answers --max: how many more replicas would be scheduled
	// (and start) after every input pod is placed; nil when not asked.
	MoreFit *int `json:"moreFit,omitempty"`
}

// PoolCount is a number of pods on one pool.
type PoolCount struct {
	Pool  string `json:"pool"`
	Count int    `json:"count"`
}

// NodeCount is a number of pods on one node.
type NodeCount struct {
	Node  string `json:"node"`
	Count int    `json:"count"`
	// Min and Max are the range over Result.TieRuns seeded runs and this
	// one, when ties were broken; equal to Count otherwise.
	Min int `json:"min"`
	Max int `json:"max"`
}

// PoolUsage is the requested versus allocatable resources of one pool
// after the simulation.
type PoolUsage struct {
	Pool        string    `json:"pool"`
	OS          string    `json:"os,omitempty"`
	Nodes       int       `json:"nodes"`
	Requested   Resources `json:"requested"`
	Allocatable Resources `json:"allocatable"`
}

// Resources is the amounts the report shows.
type Resources struct {
	MilliCPU int64 `json:"milliCPU"`
	Memory   int64 `json:"memory"` // bytes
	Pods     int64 `json:"pods"`
}

// Dependency is a Service a workload placed on Windows nodes names in its
// configuration (env, command, args, exec probes and hooks, the ConfigMaps
// it reads), and whether its pods reach it from their pool.
type Dependency struct {
	Workload string `json:"workload"` // Kind/namespace/name
	Pool     string `json:"pool"`     // the Windows pool its pods were placed on
	Name     string `json:"name"`     // as written
	Where    string `json:"where"`
	Service  string `json:"service"` // namespace/name
	// Resolves: a Windows pod resolves the name (a short name in the
	// Service's namespace, or the fully qualified name).
	Resolves bool `json:"resolves"`
	// Blocked says why traffic does not get through although the name
	// resolves: a NetworkPolicy, or what Windows networking does not do.
	Blocked string `json:"blocked,omitempty"`
	// Note qualifies the answer (the Service is not in the input, the
	// policy's enforcement is unknown).
	Note string `json:"note,omitempty"`
}
