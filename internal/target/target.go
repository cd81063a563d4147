package target

import (
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/winkube/winkube/internal/cluster"
	"github.com/winkube/winkube/internal/winsupport"
)

// OS is a node operating system as kubernetes.io/os spells it.
type OS string

const (
	Windows OS = "windows"
	Linux   OS = "linux"
	Unknown OS = ""
)

// Source names the kind of signal an OS was read from.
type Source string

const (
	FromSpecOS       Source = "spec.os.name"
	FromNodeSelector Source = "nodeSelector"
	FromNodeAffinity Source = "node affinity"
	FromRuntimeClass Source = "RuntimeClass"
	FromImage        Source = "image"
	FromHostProcess  Source = "HostProcess"
)

// Signal is one piece of evidence about the workload's OS.
type Signal struct {
	Source Source
	OS     OS
	Path   *field.Path
	Detail string
}

// Facts is what every rule knows about a workload's targeting.
type Facts struct {
	// OS is what the workload is for, from the strongest signal: the
	// scheduling pin, then spec.os.name, HostProcess, the images.
	OS OS
	// By is the source OS was read from.
	By Source
	// Pinned is true when scheduling constraints allow only one OS.
	Pinned bool
	// Schedulable lists the OSes the scheduling constraints allow.
	Schedulable []OS
	// Builds lists the Windows builds the constraints allow, of those the
	// model and cluster know; nil when any build is allowed.
	Builds  []string
	Signals []Signal
	// NodeSelector and Tolerations are the pod's after the RuntimeClass
	// admission merge; Conflict is the API server's refusal of the merge.
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
	Conflict     string
	// RuntimeClass is the referenced class when it is known.
	RuntimeClassName string
	RuntimeClass     *nodev1.RuntimeClass
	HostProcess      bool
	HyperV           bool
}

// Is reports whether the workload is for os.
func (f *Facts) Is(os OS) bool { return f.OS == os }

// SpecOS returns the spec.os.name signal, if any.
func (f *Facts) SpecOS() (Signal, bool) {
	for _, s := range f.Signals {
		if s.Source == FromSpecOS {
			return s, true
		}
	}
	return Signal{}, false
}

// Input is what Resolve reads.
type Input struct {
	Spec     *corev1.PodSpec
	SpecPath *field.Path
	// RuntimeClass is the class spec.runtimeClassName names, nil when the
	// name is empty or unknown.
	RuntimeClass *nodev1.RuntimeClass
	Cluster      *cluster.Cluster
	Model        winsupport.Model
}

// Resolve derives the targeting facts of one pod spec.
func Resolve(in Input) Facts {
	s := in.Spec
	f := Facts{NodeSelector: s.NodeSelector, Tolerations: s.Tolerations}
	if s.RuntimeClassName != nil {
		f.RuntimeClassName = *s.RuntimeClassName
		f.RuntimeClass = in.RuntimeClass
		f.NodeSelector, f.Tolerations, f.Conflict = MergeRuntimeClass(f.NodeSelector, f.Tolerations, in.RuntimeClass)
		if in.RuntimeClass != nil && in.Model.HyperVHandler(in.RuntimeClass.Handler) {
			f.HyperV = true
		}
	}
	f.HostProcess = HostProcess(s)
	schedulable(&f, s, in)
	collectSignals(&f, in)
	decide(&f)
	return f
}
