{{/* Labels on every object of the release. */}}
{{- define "capi-serverless.labels" -}}
app.kubernetes.io/part-of: capi-serverless
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* The forwarder's selector labels. */}}
{{- define "capi-serverless.forwarderSelector" -}}
app.kubernetes.io/name: capi-serverless-forwarder
{{- end }}

{{/*
The release namespace; fails when forwarder.namespace (the namespace the stack's Pod Identity association names) is
set and differs, since the forwarder would then run without AWS credentials.
*/}}
{{- define "capi-serverless.namespace" -}}
{{- $expected := .Values.forwarder.namespace -}}
{{- if and $expected (ne $expected .Release.Namespace) -}}
{{- fail (printf "forwarder.namespace is %q (the stack's Pod Identity association is for that namespace) but the release namespace is %q: install with -n %s" $expected .Release.Namespace $expected) -}}
{{- end -}}
{{- .Release.Namespace -}}
{{- end }}

{{/*
The objects of a multi-document YAML file under files/, parsed; each gets the release's labels. Argument: a dict with
root (the top context), file and optionally replace (a dict of literal text replacements made before parsing).
*/}}
{{- define "capi-serverless.fileObjects" -}}
{{- $text := .root.Files.Get .file -}}
{{- if not $text }}{{ fail (printf "chart file %s is missing" .file) }}{{ end -}}
{{- range $from, $to := (.replace | default dict) }}{{ $text = replace $from $to $text }}{{ end -}}
{{- $objects := list -}}
{{- range $doc := regexSplit "(?m)^---[ \t]*$" $text -1 -}}
{{- $object := fromYaml $doc -}}
{{- if hasKey $object "Error" }}{{ fail (printf "chart file %s: %s" $.file (get $object "Error")) }}{{ end -}}
{{- if $object.kind -}}
{{- $labels := merge (dict) ($object.metadata.labels | default dict) (include "capi-serverless.labels" $.root | fromYaml) -}}
{{- $_ := set $object.metadata "labels" $labels -}}
{{- $objects = append $objects $object -}}
{{- end -}}
{{- end -}}
{{- dict "objects" $objects | toYaml -}}
{{- end }}
