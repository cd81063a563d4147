package simulate

import (
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/winkube/winkube/internal/cluster"
)

// node is one node and what is bound to it.
type node struct {
	idx     int // position in name order; ties are broken by it
	added   int // position in the input: the order nodes joined the cluster
	obj     *corev1.Node
	name    string
	pool    string
	os      string
	class   *class
	alloc   amounts
	allowed int // allocatable pods

	used   amounts  // requests of bound pods
	score  [2]int64 // CPU and memory of bound pods as LeastAllocated counts them
	pods   []*placed
	ports  []hostPort // host ports in use
	bucket *bucket

	// balanceWithout caches BalancedAllocation's balance of the node's
	// own usage until the usage changes.
	balanceWithout int64
	balanceValid   bool
}

// placed is a pod bound to a node, as other pods' selectors see it.
type placed struct {
	ns     string
	labels labels.Set
	node   *node
	// anti are the pod's required anti-affinity terms, which later pods
	// must not match (InterPodAffinity's "existing pods" rule).
	anti  []term
	ports []hostPort
	sp    *schedPod
}

// class is a set of nodes the static filters cannot tell apart: the same
// labels (hostname aside), taints, unschedulable flag and allocatable.
// Static filters run once per class and pod template, not once per node.
type class struct {
	id      int
	rep     *node // the first node, by name
	nodes   []*node
	buckets map[bucketKey]*bucket
}

// bucket is the nodes of a class whose usage is identical, so every
// dynamic check and score that only reads usage gives them the same
// answer. The scheduler picks the first by name among equals, which is
// the bucket's minimum.
type bucket struct {
	key     bucketKey
	class   *class
	used    amounts // the members' usage
	pods    int
	members nodeSet
	version uint64 // bumped whenever members change
}

type bucketKey struct {
	MilliCPU, Memory, Ephemeral int64
	ScoreCPU, ScoreMemory       int64
	Pods                        int
	Scalar                      string
}

func (n *node) bucketKey() bucketKey {
	return bucketKey{MilliCPU: n.used.MilliCPU, Memory: n.used.Memory, Ephemeral: n.used.Ephemeral,
		ScoreCPU: n.score[0], ScoreMemory: n.score[1], Pods: len(n.pods), Scalar: n.used.Scalar.key()}
}

// newNodes builds the node states, sorted by name, grouped in classes.
func newNodes(objs []*corev1.Node, pools map[string]string) []*node {
	nodes := make([]*node, 0, len(objs))
	for i, o := range objs {
		n := &node{obj: o, name: o.Name, pool: pools[o.Name], os: cluster.NodeOS(o), added: i}
		if n.pool == "" {
			n.pool = n.os
		}
		alloc := o.Status.Allocatable
		if len(alloc) == 0 {
			alloc = o.Status.Capacity
		}
		n.alloc = amountsOf(alloc)
		if p, ok := alloc[corev1.ResourcePods]; ok {
			n.allowed = int(p.Value())
		}
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].name < nodes[j].name })
	classes := map[string]*class{}
	for i, n := range nodes {
		n.idx = i
		sig := classSignature(n)
		c, ok := classes[sig]
		if !ok {
			c = &class{id: len(classes), rep: n, buckets: map[bucketKey]*bucket{}}
			classes[sig] = c
		}
		n.class = c
		c.nodes = append(c.nodes, n)
		c.join(n)
	}
	return nodes
}

// classSignature renders what static filters read of a node.
func classSignature(n *node) string {
	var b strings.Builder
	keys := make([]string, 0, len(n.obj.Labels))
	for k := range n.obj.Labels {
		if k != cluster.LabelHostname {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(k + "=" + n.obj.Labels[k] + "\x00")
	}
	b.WriteString("\x01")
	for _, t := range n.obj.Spec.Taints {
		b.WriteString(t.ToString() + "\x00")
	}
	if n.obj.Spec.Unschedulable {
		b.WriteString("\x01unschedulable")
	}
	a := n.alloc
	b.WriteString("\x01" + itoa(a.MilliCPU) + "," + itoa(a.Memory) + "," + itoa(a.Ephemeral) + "," + itoa(int64(n.allowed)) + "," + a.Scalar.key())
	b.WriteString("\x01" + n.pool + "\x01" + n.os)
	return b.String()
}

// join puts n in the bucket of its usage.
func (c *class) join(n *node) {
	k := n.bucketKey()
	b, ok := c.buckets[k]
	if !ok {
		b = &bucket{key: k, class: c, used: n.used, pods: len(n.pods)}
		c.buckets[k] = b
	}
	b.members.push(n)
	b.version++
	n.bucket = b
}

// leave takes n out of its bucket, dropping the bucket when empty.
func (c *class) leave(n *node) {
	b := n.bucket
	b.members.remove(n)
	b.version++
	if b.members.len() == 0 {
		delete(c.buckets, b.key)
	}
	n.bucket = nil
}

// sortedBuckets lists the class's buckets in a stable order.
func (c *class) sortedBuckets() []*bucket {
	out := make([]*bucket, 0, len(c.buckets))
	for _, b := range c.buckets {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].members.min().idx < out[j].members.min().idx })
	return out
}

// classesOf lists the distinct classes of nodes in order of first node.
func classesOf(nodes []*node) []*class {
	var out []*class
	seen := map[*class]bool{}
	for _, n := range nodes {
		if !seen[n.class] {
			seen[n.class] = true
			out = append(out, n.class)
		}
	}
	return out
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// nodeSet is a bucket's nodes, kept sorted by name order so the first
// node that passes a check is found by walking from the front.
type nodeSet struct{ items []*node }

func (s *nodeSet) len() int   { return len(s.items) }
func (s *nodeSet) min() *node { return s.items[0] }

func (s *nodeSet) search(n *node) int {
	return sort.Search(len(s.items), func(i int) bool { return s.items[i].idx >= n.idx })
}

func (s *nodeSet) push(n *node) {
	i := s.search(n)
	s.items = append(s.items, nil)
	copy(s.items[i+1:], s.items[i:])
	s.items[i] = n
}

func (s *nodeSet) remove(n *node) {
	i := s.search(n)
	if i < len(s.items) && s.items[i] == n {
		s.items = append(s.items[:i], s.items[i+1:]...)
	}
}

// treeOrder returns the nodes in the snapshot's order, given the order in
// which they were added (the input's).
func treeOrder(added []*node) []*node {
	var zones []string
	byZone := map[string][]*node{}
	for _, n := range added {
		z := zoneKey(n.obj.Labels)
		if _, ok := byZone[z]; !ok {
			zones = append(zones, z)
		}
		byZone[z] = append(byZone[z], n)
	}
	out := make([]*node, 0, len(added))
	for i := 0; len(out) < len(added); i++ {
		for _, z := range zones {
			if ns := byZone[z]; i < len(ns) {
				out = append(out, ns[i])
			}
		}
	}
	return out
}

// zoneKey is utilnode.GetZoneKey: region and zone, stable or beta labels.
func zoneKey(l map[string]string) string {
	region := l[corev1.LabelTopologyRegion]
	if region == "" {
		region = l[corev1.LabelFailureDomainBetaRegion]
	}
	zone := l[corev1.LabelTopologyZone]
	if zone == "" {
		zone = l[corev1.LabelFailureDomainBetaZone]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}
