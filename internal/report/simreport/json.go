package simreport

import (
	"io"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/simulate"
)

// APIVersion and Kind identify the JSON form of a simulation result.
const (
	APIVersion = manifest.APIVersion
	Kind       = "SimulationReport"
)

// jsonReport is the versioned JSON form; docs describe it field by field.
type jsonReport struct {
	report.Header
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
	out := jsonReport{Header: report.Header{APIVersion: APIVersion, Kind: Kind}, KubernetesVersion: r.Version, Summary: r.Count(),
		Workloads: report.NonNil(r.Workloads), Pools: report.NonNil(r.Pools), Pods: make([]jsonPod, len(r.Pods)), Dependencies: r.Dependencies, Notes: report.NonNil(r.Notes)}
	for i, p := range r.Pods {
		out.Pods[i] = jsonPod(p)
	}
	return report.WriteJSON(w, out)
}
