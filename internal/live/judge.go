package live

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/engine"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/rule"
	"github.com/winkube/winkube/internal/simulate"
	"github.com/winkube/winkube/internal/winsupport"
)

// ModelFor returns the support model of the server's Kubernetes version,
// the newest winkube knows when the server is newer.
func ModelFor(server string) (winsupport.Model, string) {
	v, err := winsupport.ParseVersion(server)
	if err != nil {
		return winsupport.Default(), fmt.Sprintf("the API server's version %s is not one winkube models; Kubernetes %s is assumed", server, winsupport.Newest)
	}
	return winsupport.ForVersion(v), ""
}

// Cluster is the cluster profile of the live nodes; without nodes (none
// exist, or they may not be listed) the reference cluster stands in.
func (s *Snapshot) Cluster() *cluster.Cluster {
	if len(s.Nodes) == 0 {
		return cluster.Reference()
	}
	c := cluster.FromNodes(s.Nodes)
	poolNetworks(s, c)
	return c
}

// Lint runs the lint rules over the top-level live objects through the
// same engine lint uses. Findings name Kind/namespace/name and the field
// path; the JSON positions the engine works out are dropped.
func Lint(s *Snapshot, tops []*manifest.Object, rules []*rule.Rule, m winsupport.Model) []rule.Finding {
	res := engine.Check(tops, engine.Options{Rules: rules, Cluster: s.Cluster(), Model: m, RuntimeClasses: s.RuntimeClasses})
	out := res.Findings
	for i := range out {
		out[i].File, out[i].Line, out[i].Column = "", 0, 0
	}
	return out
}

// PlacedInput is the live cluster as it stands: the live nodes, every pod
// that is bound and not finished already placed on its node (as a pod
// naming its node), then the pods still waiting for a node in the order
// they were created. The pods are stored already (simulate.Input.Stored):
// they are not validated or admitted again.
func PlacedInput(s *Snapshot, m winsupport.Model) simulate.Input {
	in := simulate.Input{Nodes: s.Nodes, RuntimeClasses: s.RuntimeClasses, Model: m, Stored: true}
	var waiting []*manifest.Object
	for _, p := range s.Pods {
		if Terminated(p) {
			continue
		}
		o := &manifest.Object{APIVersion: "v1", Kind: "Pod", Namespace: p.Namespace, Name: p.Name, Root: &manifest.Node{}, Typed: p}
		if p.Spec.NodeName == "" {
			waiting = append(waiting, o)
			continue
		}
		in.Objects = append(in.Objects, o)
	}
	in.Objects = append(in.Objects, waiting...)
	return in
}

// Terminated reports whether the pod has finished (Succeeded or Failed).
func Terminated(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}
