package simulate

// Counts tallies a result.
type Counts struct {
	Nodes         int `json:"nodes"`
	Pods          int `json:"pods"`
	Scheduled     int `json:"scheduled"`
	Pending       int `json:"pending"`
	Rejected      int `json:"rejected"`
	StartFailures int `json:"startFailures"`
}

// Count tallies the pods of the result.
func (r *Result) Count() Counts {
	var c Counts
	for _, p := range r.Pools {
		c.Nodes += p.Nodes
	}
	for _, p := range r.Pods {
		c.Pods += p.Pods()
		switch {
		case p.Rejected:
			c.Rejected += p.Pods()
		case p.Pending:
			c.Pending += p.Pods()
		case p.StartFailure != "":
			c.StartFailures++
		}
		if p.Node != "" && !p.Rejected && !p.Pending {
			c.Scheduled++
		}
	}
	return c
}

// Failed reports whether any pod is rejected, pending or fails at start.
func (r *Result) Failed() bool {
	c := r.Count()
	return c.Rejected+c.Pending+c.StartFailures > 0
}
