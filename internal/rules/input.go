package rules

import "github.com/winkube/winkube/internal/rule"

var inputRules = []*rule.Rule{LoadError, WindowsTemplateNotRendered}

// LoadError is reported by the engine, not run: every input problem
// (invalid YAML, unrendered templates, placeholders, wrong types, binary or
// oversized files) becomes a finding so the rest of the input is checked.
var LoadError = &rule.Rule{
	ID:       "load-error",
	Title:    "Input could not be read as Kubernetes objects",
	Severity: rule.Error,
	Category: rule.Input,
	Doc: rule.Doc{
		What: "Reports documents winkube could not parse or decode: invalid YAML (tabs, duplicate keys, bad indentation), unrendered Helm templates, unfilled placeholders such as <image-name>, __acrName__ or ${VAR} in identifying fields, values of the wrong type (replicas: \"x\"), YAML that is not a Kubernetes object, binary files and documents over 64 MiB.",
		Why:  "A manifest that cannot be read cannot be checked, and the API server would refuse it too. winkube never skips input silently: the problem is reported with its line and every other document is still checked. YAML that is not a Kubernetes object is reported as a warning.",
		Fix:  "Follow the hint: render Helm charts first (helm template ./chart | winkube lint -), substitute placeholders, quote strings that look like numbers, indent with spaces.",
		Sources: []string{
			"kubernetes.io/docs/concepts/overview/working-with-objects/ (Object spec and status: the required fields apiVersion, kind, metadata)",
			"helm.sh/docs/helm/helm_template/ (render a chart locally)",
		},
	},
}
