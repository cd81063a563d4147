package policy

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/winkube/winkube/internal/rule"
)

// Formats are the output formats of Export.
var Formats = []string{"admission-policy", "kyverno"}

// Export renders the policies in a format as multi-document YAML. A
// comment header lists the rules left out and why.
func Export(o Options, format string) ([]byte, error) {
	o.defaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	rules, checks, skipped := o.selected()
	params, err := Params(o.Cluster, o.Model, o.ParamsNamespace)
	if err != nil {
		return nil, err
	}
	var objs []any
	switch format {
	case "admission-policy":
		objs = append(objs, params)
		objs = append(objs, validatingPolicies(&o, rules, checks)...)
		if o.Fixes {
			objs = append(objs, mutatingPolicy(&o)...)
		}
	case "kyverno":
		ky, err := kyvernoPolicies(&o, rules, checks)
		if err != nil {
			return nil, err
		}
		objs = append(objs, ky...)
	default:
		return nil, fmt.Errorf("unknown format %q: want %s", format, strings.Join(Formats, " or "))
	}
	var b bytes.Buffer
	header(&b, &o, format, rules, skipped)
	for i, obj := range objs {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(stripStatus(y))
	}
	return b.Bytes(), nil
}

// stripStatus drops the empty status and creationTimestamp the typed
// objects marshal.
func stripStatus(y []byte) []byte {
	var out []string
	skip := false
	for _, l := range strings.SplitAfter(string(y), "\n") {
		switch {
		case l == "status: {}\n", strings.TrimSpace(l) == "creationTimestamp: null":
			continue
		case strings.HasPrefix(l, "status:"):
			skip = true
			continue
		case skip && (strings.HasPrefix(l, " ") || l == ""):
			continue
		}
		skip = false
		out = append(out, l)
	}
	return []byte(strings.Join(out, ""))
}

// header is the YAML comment that opens the output: what was exported for
// which release and cluster, and which rules were not, with the reason.
func header(b *bytes.Buffer, o *Options, format string, rules []*rule.Rule, skipped []Skipped) {
	fmt.Fprintf(b, "# winkube policy export -o %s, Kubernetes %s, mode %s\n", format, o.Model.V, o.Mode)
	fmt.Fprintf(b, "# %d rules exported:", len(rules))
	for i, r := range rules {
		if i%6 == 0 {
			b.WriteString("\n#  ")
		}
		b.WriteString(" " + r.ID)
	}
	b.WriteString("\n")
	if len(skipped) > 0 {
		fmt.Fprintf(b, "# %d rules not exported (the winkube webhook or winkube lint enforces them):\n", len(skipped))
		for _, s := range skipped {
			fmt.Fprintf(b, "#   %s: %s\n", s.Rule, s.Reason)
		}
	}
	b.WriteString("# Workloads that name a RuntimeClass, and pods a checked controller owns, are not checked.\n")
}
