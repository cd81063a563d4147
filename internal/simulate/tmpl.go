package simulate

import "k8s.io/apimachinery/pkg/labels"

// tmpl is a pod template being scheduled, with its cached verdicts.
type tmpl struct {
	sp     *schedPod
	ns     string
	labels labels.Set

	statics     map[*class]static // per class
	byClass     []*static         // the same by class id, for the node-by-node walk
	nodeStatics map[*node]static  // per node, when sp.perNode
	fast        *fastState

	aff         *affinityCounts
	affEpoch    uint64
	spread      *spreadCounts
	spreadEpoch uint64
	owners      int // owners checked for anti-affinity against this template
	ownersReset uint64
	repelled    bool // some owner's anti-affinity matches this template

	softCounts *softCounts
	softEpoch  uint64
}

func newTmpl(sp *schedPod) *tmpl {
	return &tmpl{sp: sp, ns: sp.pod.Namespace, labels: labels.Set(sp.pod.Labels),
		statics: map[*class]static{}, nodeStatics: map[*node]static{}}
}
