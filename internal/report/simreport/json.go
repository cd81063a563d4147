package simreport

import (
	"encoding/json"
	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/simulate"
	"io"
)

// APIVersion and Kind identify the JSON form of a simulation result.
const (
	APIVersion = manifest.APIVersion
	Kind       = "SimulationReport"
)

// jsonReport is the versioned JSON form; docs describe it field by field.
type jsonReport struct {
	APIVersion        string                    `json:"apiVersion"`
	Kind              string                    `json:"kind"`
	KubernetesVersion string                    `json:"kubernetesVersion"`
	Summary           simulate.Counts           `json:"summary"`
	Workloads         []simulate.WorkloadResult `json:"workloads"`
	Pools             []simulate.PoolUsage      `json:"pools"`
	Pods              []jsonPod                 `json:"pods"`
	Dependencies      []simulate.Dependency     `json:"dependencies,omitempty"`
	Notes             []string                  `json:"notes"`
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
	Repeat        int      `json:"repeat,omitempty"` // further identical pods this entry stands for
}

// WriteJSON writes the result as a SimulationReport (apiVersion
// winkube.io/v1alpha1).
func WriteJSON(w io.Writer, r *simulate.Result) error {
	out := jsonReport{APIVersion: APIVersion, Kind: Kind, KubernetesVersion: r.Version, Summary: r.Count(),
		Workloads: nonNil(r.Workloads), Pools: nonNil(r.Pools), Pods: make([]jsonPod, len(r.Pods)), Dependencies: r.Dependencies, Notes: nonNil(r.Notes)}
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
