{{/* The release's object name: the release name, or release-chart. */}}
{{- define "winkube-webhook.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "winkube-webhook.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "winkube-webhook.labels" -}}
{{ include "winkube-webhook.selectorLabels" . }}
app.kubernetes.io/part-of: winkube
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Namespaces the webhook never sees: kube-system, its own, and more. */}}
{{- define "winkube-webhook.excludedNamespaces" -}}
{{- concat (list "kube-system" .Release.Namespace) .Values.config.excludeNamespaces | uniq | toJson -}}
{{- end -}}

{{- define "winkube-webhook.tlsSecretName" -}}
{{- if .Values.tls.generate -}}
{{- printf "%s-tls" (include "winkube-webhook.fullname" .) -}}
{{- else -}}
{{- required "tls.secretName is required when tls.generate is false" .Values.tls.secretName -}}
{{- end -}}
{{- end -}}

{{/* The namespaceSelector and rules both webhooks share. */}}
{{- define "winkube-webhook.match" -}}
namespaceSelector:
  matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ include "winkube-webhook.excludedNamespaces" . }}
{{- end -}}

{{- define "winkube-webhook.workloadRules" -}}
- apiGroups: [apps]
  apiVersions: [v1]
  resources: [deployments, statefulsets, daemonsets, replicasets]
  operations: [CREATE, UPDATE]
  scope: Namespaced
- apiGroups: [batch]
  apiVersions: [v1]
  resources: [jobs, cronjobs]
  operations: [CREATE, UPDATE]
  scope: Namespaced
{{- end -}}
