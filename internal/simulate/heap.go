package simulate

import "sort"

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
