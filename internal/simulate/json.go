package simulate

import (
	"encoding/json"
	"io"
)

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
		c.Pods++
		switch {
		case p.Rejected:
			c.Rejected++
		case p.Pending:
			c.Pending++
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

// jsonReport is the versioned JSON form; docs describe it field by field.
type jsonReport struct {
	APIVersion        string           `json:"apiVersion"`
	Kind              string           `json:"kind"`
	KubernetesVersion string           `json:"kubernetesVersion"`
	Summary           Counts           `json:"summary"`
	Workloads         []WorkloadResult `json:"workloads"`
	Pools             []PoolUsage      `json:"pools"`
	Pods              []jsonPod        `json:"pods"`
	Notes             []string         `json:"notes"`
}

// jsonPod always carries the outcome fields, empty or not, so consumers
// need not guess defaults.
type jsonPod struct {
	Workload      string   `json:"workload"`
	Namespace     string   `json:"namespace"`
	Pod           string   `json:"pod"`
	Node          string   `json:"node"`
	Pool          string   `json:"pool,omitempty"`
	Rejected      bool     `json:"rejected"`
	RejectMessage string   `json:"rejectMessage,omitempty"`
	Pending       bool     `json:"pending"`
	Message       string   `json:"message,omitempty"`
	Explanation   []string `json:"explanation,omitempty"`
	Feasible      []string `json:"feasible,omitempty"`
	StartFailure  string   `json:"startFailure"`
	NotModelled   []string `json:"notModelled,omitempty"`
}

// WriteJSON writes the result as a SimulationReport (apiVersion
// winkube.io/v1alpha1).
func WriteJSON(w io.Writer, r *Result) error {
	out := jsonReport{APIVersion: APIVersion, Kind: ReportKind, KubernetesVersion: r.Version, Summary: r.Count(),
		Workloads: nonNil(r.Workloads), Pools: nonNil(r.Pools), Pods: make([]jsonPod, len(r.Pods)), Notes: nonNil(r.Notes)}
	for i, p := range r.Pods {
		out.Pods[i] = jsonPod(p)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
