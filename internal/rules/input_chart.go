package rules

import "github.com/winkube/winkube/internal/rule"

// WindowsTemplateNotRendered is reported by the engine, not run: chart
// rendering (internal/chart) notes each template with Windows markers that
// rendered nothing with the values given, and the engine turns the note
// into this rule's finding, configured and disabled like any rule.
var WindowsTemplateNotRendered = &rule.Rule{
	ID:       "windows-template-not-rendered",
	Title:    "Chart's Windows template rendered nothing with these values",
	Severity: rule.Warning,
	Category: rule.Input,
	Doc: rule.Doc{
		What: "Reports a Helm chart template that holds Windows markers (kubernetes.io/os: windows, windowsOptions, hostProcess, a Windows image such as mcr.microsoft.com/windows/nanoserver, or windows in its file name) and rendered nothing (or only comments and ---) with the values given, so none of its objects was checked. The finding is at the template's first condition ({{- if .Values.windows.enabled }}); when that condition is a chart value, or an and/or of chart values, it names the values that are false and the --set that renders the template, otherwise it quotes the condition. Helpers (_*.tpl), NOTES.txt, templates that rendered and templates without Windows markers are not reported; neither is a template whose source holds a winkube.io/ignore annotation naming the rule (or all). Subcharts that a dependency condition disables are not rendered at all and are not reported.",
		Why:  "Charts commonly ship their Windows DaemonSets behind a value that is off by default (newrelic-infrastructure's enableWindows, secrets-store-csi-driver's windows.enabled, local-static-provisioner's enableWindows). helm template renders such a template to nothing, so a lint of the chart with its default values checks no Windows object and reads clean, while the same chart with the Windows value on has findings. Windows pods differ from Linux ones in what the API server, kubelet and container runtime accept, so the Windows side needs its own check.",
		Fix:  "Lint the chart again with the Windows values your release uses (--set windows.enabled=true, or the --values file you install with). If the cluster runs no Windows nodes, disable the rule in .winkube.yaml.",
		Sources: []string{
			"https://helm.sh/docs/chart_template_guide/control_structures/ (If/Else: a template whose condition is false renders nothing)",
			"https://helm.sh/docs/helm/helm_template/ (render a chart locally with --set and --values)",
			"https://kubernetes.io/docs/concepts/windows/user-guide/ (Ensuring OS-specific workloads land on the appropriate container host)",
			"https://kubernetes.io/docs/concepts/windows/intro/#compatibility-v1-pod (the Pod fields that differ on Windows)",
		},
	},
}
