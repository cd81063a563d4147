package cli

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/chart"
	"github.com/winkube/winkube/internal/inputs"
	"github.com/winkube/winkube/internal/manifest"
)

// inputFlags are helm template's flags, for a chart given as a path:
// lint, fix, simulate and images read their paths through inputs.Resolve.
type inputFlags struct {
	values      []string
	set         []string
	releaseName string
	namespace   string
	kubeVersion string
}

func (i *inputFlags) addInputFlags(f *pflag.FlagSet) {
	f.StringArrayVarP(&i.values, "values", "f", nil, "for a Helm chart: values file (repeatable; later files win)")
	f.StringArrayVar(&i.set, "set", nil, "for a Helm chart: set a value, key=value, as helm --set (repeatable)")
	f.StringVar(&i.releaseName, "release-name", "", "for a Helm chart: the release name (default release-name, as helm template)")
	f.StringVarP(&i.namespace, "namespace", "n", "", "for a Helm chart: the release namespace (default default)")
	f.StringVar(&i.kubeVersion, "kube-version", "", "for a Helm chart: .Capabilities.KubeVersion (default: the --kubernetes-version checked against)")
}

// resolveInputs turns the arguments into inputs: charts rendered,
// kustomizations built, everything else read as it is.
func (i *inputFlags) resolveInputs(s *scope, args []string, stdin io.Reader) ([]manifest.Input, []*manifest.Error) {
	kv := i.kubeVersion
	if kv == "" {
		kv = s.model.V.String()
	}
	return inputs.Resolve(args, stdin, inputs.Options{Minor: s.model.V.Minor, Chart: chart.Options{
		Values: i.values, Set: i.set, ReleaseName: i.releaseName, Namespace: i.namespace, KubeVersion: kv,
	}})
}
