package doctor

import (
	"fmt"
	"strings"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/live"
)

// maxLogEvidence is how many matching lines a diagnosis quotes, the
// newest ones.
const maxLogEvidence = 5

// diagnoseNodes names the node causes each kubelet's logs show. Pods and
// events play no part: a node whose kube-proxy cannot program Services
// runs healthy-looking pods.
func diagnoseNodes(s *live.Snapshot) []Diagnosis {
	var out []Diagnosis
	for _, k := range s.Kubelets {
		n := s.Node(k.Node)
		for _, c := range nodeCauses() {
			found, ok := c.signature.Find(k, maxLogEvidence)
			if !ok {
				continue
			}
			var ev []Evidence
			for _, l := range found.Lines {
				ev = append(ev, logEvidence(l))
			}
			d := Diagnosis{Node: k.Node, State: "node", Cause: c.ID, Title: c.Title, Likelihood: 70, Evidence: ev,
				Explanation: c.Explain, Steps: fillNode(c.Steps, k.Node), Sources: c.Sources}
			if n != nil {
				d.NodeOS = cluster.NodeOS(n)
				d.NodeBuild = cluster.KernelBuild(n)
				if k.Stats != nil && k.Stats.MemoryWorkingSetBytes != nil {
					if msg := live.MemoryPressure(n, k.Stats); msg != "" {
						d.Evidence = append(d.Evidence, Evidence{Source: "stats", Message: msg})
					}
				}
			}
			d.Summary = fmt.Sprintf("node %s: %s: %d matching log line(s) in the last read, the newest: %s", k.Node, c.Title, found.Total, ev[len(ev)-1].Message)
			for _, cmd := range c.Commands {
				cmd.Line = fillNode([]string{cmd.Line}, k.Node)[0]
				d.Commands = append(d.Commands, cmd)
			}
			out = append(out, d)
		}
	}
	return out
}

func logEvidence(l live.LogLine) Evidence {
	e := Evidence{Source: "log", Reason: l.Service, Message: l.Text}
	if !l.Time.IsZero() {
		t := l.Time
		e.Time = &t
	}
	return e
}

func fillNode(lines []string, node string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.ReplaceAll(l, "{node}", node)
	}
	return out
}

// statsEvidence quotes the node's memory from its kubelet's stats, for
// the OOM and eviction causes.
func statsEvidence(s *live.Snapshot, c *podCtx) *Evidence {
	if c.node == nil {
		return nil
	}
	k := s.Kubelet(c.node.Name)
	if k == nil || k.Stats == nil || k.Stats.MemoryWorkingSetBytes == nil {
		return nil
	}
	msg := live.MemoryPressure(c.node, k.Stats)
	if msg == "" {
		ws := *k.Stats.MemoryWorkingSetBytes
		msg = fmt.Sprintf("node %s: working set %.1fGi, allocatable %s (kubelet stats)", c.node.Name, float64(ws)/(1<<30), c.node.Status.Allocatable.Memory().String())
	}
	return &Evidence{Source: "stats", Message: msg}
}
