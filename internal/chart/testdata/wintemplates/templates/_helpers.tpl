{{- define "wintemplates.windowsSelector" -}}
kubernetes.io/os: windows
{{- end }}
