package simulate

import (
	"strings"
)

// nodeImages is what ImageLocality knows of the nodes' images, from
// status.images: per node, image name to size, and on how many nodes each
// name is present. nil when no node lists images.
type nodeImages struct {
	size     []map[string]int64 // by node index
	numNodes map[string]int
	total    int
}

func newNodeImages(nodes []*node) *nodeImages {
	ni := &nodeImages{size: make([]map[string]int64, len(nodes)), numNodes: map[string]int{}, total: len(nodes)}
	any := false
	for _, n := range nodes {
		m := map[string]int64{}
		for _, img := range n.obj.Status.Images {
			for _, name := range img.Names {
				if _, dup := m[name]; !dup {
					ni.numNodes[name]++
				}
				m[name] = img.SizeBytes
				any = true
			}
		}
		ni.size[n.idx] = m
	}
	if !any {
		return nil
	}
	return ni
}

// ImageLocality's thresholds.
const (
	imageMinThreshold          = 23 << 20
	imageMaxContainerThreshold = 1000 << 20
)

// score is ImageLocality's score of node n for the pod: the sizes of its
// images already on n, each scaled by the share of nodes that have it.
func (ni *nodeImages) score(sp *schedPod, n *node) int64 {
	var sum int64
	for _, img := range sp.images {
		name := normalizedImageName(img)
		if size, ok := ni.size[n.idx][name]; ok {
			sum += int64(float64(size) * float64(ni.numNodes[name]) / float64(ni.total))
		}
	}
	hi := int64(imageMaxContainerThreshold) * int64(sp.imageContainers)
	sum = max(min(sum, hi), imageMinThreshold)
	if hi <= imageMinThreshold {
		return 0
	}
	return maxNodeScore * (sum - imageMinThreshold) / (hi - imageMinThreshold)
}

// normalizedImageName adds ":latest" to a reference without a tag, as
// ImageLocality does before looking it up.
func normalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}
