package live

import "time"

// Kubelet is what was read of one node's kubelet through its HTTP API:
// its running configuration (/configz), recent lines of its node
// services' logs (/logs/?query=, the node log query) and its resource
// stats (/stats/summary). What could not be read is in Unread.
type Kubelet struct {
	Node string
	// Config is the kubeletconfig object of /configz: the kubelet's
	// effective KubeletConfiguration (kubelet.config.k8s.io/v1beta1) as
	// JSON; nil when it was not read.
	Config []byte
	// Logs are the log lines kept (see fetch.KubeletOptions.KeepLine),
	// per service in the order read.
	Logs []LogLine
	// Stats is the node part of /stats/summary; nil when it was not read.
	Stats  *NodeStats
	Unread []Unread
}

// LogLine is one line of a node service's log.
type LogLine struct {
	Service string
	// Time is the line's own timestamp; zero when it has none winkube
	// reads (klog, logrus and Event Log formats are read).
	Time time.Time
	Text string
}

// Unread is one kubelet endpoint that could not be read, and why.
type Unread struct {
	// Endpoint is the path asked for, e.g. "/configz" or
	// "/logs/?query=kubelet".
	Endpoint string
	// Permission is the RBAC permission that was missing, e.g. "get
	// nodes/configz"; "" when the failure was not a denial.
	Permission string
	Err        string
}

// KubeletAccess says how the kubelets were read.
type KubeletAccess struct {
	// Path is "direct" (to each kubelet's port, authorized by the kubelet
	// per subresource) or "proxy" (through the API server's node proxy,
	// which needs nodes/proxy).
	Path  string
	Nodes int // nodes whose kubelet was asked
}

// NodeStats is the node-level part of the kubelet's stats summary
// (k8s.io/kubelet pkg/apis/stats/v1alpha1 Summary.Node) that winkube
// judges. A nil pointer is a value the kubelet did not report.
type NodeStats struct {
	Time                  time.Time
	MemoryWorkingSetBytes *uint64
	MemoryAvailableBytes  *uint64
	FsAvailableBytes      *uint64
	FsCapacityBytes       *uint64
	ImageFsAvailableBytes *uint64
	ImageFsCapacityBytes  *uint64
}
