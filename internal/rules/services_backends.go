package rules

import (
	"fmt"

	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/target"
)

// hnsBackendLimit is the most backend pods (unique destination addresses)
// a Service can have on Windows nodes. Older guidance said 64; the
// current page says 1024.
const hnsBackendLimit = 1024

// WindowsServiceBackendLimit: more backends than a Windows node's load
// balancer takes.
var WindowsServiceBackendLimit = &rule.Rule{
	ID:       "windows-service-backend-limit",
	Title:    "Service has more backend pods than Windows nodes support",
	Severity: rule.Warning,
	Category: rule.Networking,
	Doc: rule.Doc{
		What: fmt.Sprintf("Reports Services whose selector matches workloads in the same namespace that together ask for more than %d pods (replicas, Job parallelism; a DaemonSet counts the cluster profile's nodes of its OS), in a cluster with Windows pools. Workloads of every OS count: kube-proxy on each Windows node programs a load balancer over all of a Service's endpoints.", hnsBackendLimit),
		Why:  fmt.Sprintf("Windows nodes do not support more than %d backend pods (unique destination addresses) for a single Service, so Windows pods and nodes cannot reach such a Service as Linux ones do. Older documentation gave 64; the current limit is %d.", hnsBackendLimit, hnsBackendLimit),
		Fix:  fmt.Sprintf("Split the Service (one per shard of pods, each under %d), or keep Windows clients off it.", hnsBackendLimit),
		Sources: []string{
			"kubernetes.io/docs/concepts/services-networking/windows-networking, Limitations (more than 1024 backend pods, or unique destination addresses, for a single Service is not supported)",
		},
	},
	Corpus: func(p *rule.CorpusPass) {
		if !p.Cluster.Has("windows") {
			return
		}
		for _, obj := range p.Services {
			svc := svcOf(obj)
			if svc == nil || len(svc.Spec.Selector) == 0 {
				continue
			}
			ns := svcNamespace(obj.Namespace)
			var pods int64
			var ws []rule.Summary
			for _, w := range p.Workloads {
				if svcNamespace(w.Namespace) != ns || !svcSelects(svc.Spec.Selector, w.Labels) {
					continue
				}
				pods += podCount(p, w)
				ws = append(ws, w)
			}
			if pods > hnsBackendLimit {
				p.Report(obj, rule.Finding{
					Path:    svcPath("selector"),
					Message: fmt.Sprintf("Service selects %d pods of %s; Windows nodes support at most %d backend pods for a single Service", pods, svcRefs(ws), hnsBackendLimit),
					Hint:    fmt.Sprintf("split the Service so each has at most %d backends, or keep Windows clients off it", hnsBackendLimit),
				})
			}
		}
	},
}

// podCount is how many pods a workload asks for; a DaemonSet has one per
// node of its OS in the cluster profile.
func podCount(p *rule.CorpusPass, w rule.Summary) int64 {
	if w.Kind != "DaemonSet" {
		return int64(w.Replicas)
	}
	var n int64
	for _, os := range []target.OS{target.Windows, target.Linux} {
		if w.OS == os || w.OS == target.Unknown {
			for _, pool := range p.Cluster.PoolsOf(string(os)) {
				n += int64(pool.Count)
			}
		}
	}
	return n
}
