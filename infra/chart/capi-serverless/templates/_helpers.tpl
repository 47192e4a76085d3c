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
The release namespace; fails when forwarder.namespace (the namespace the stack's forwarder role is for) is
set and differs, since the forwarder would then run without AWS credentials.
*/}}
{{- define "capi-serverless.namespace" -}}
{{- $expected := .Values.forwarder.namespace -}}
{{- if and $expected (ne $expected .Release.Namespace) -}}
{{- fail (printf "forwarder.namespace is %q (the stack's forwarder role, Pod Identity or IRSA, is for that namespace) but the release namespace is %q: install with -n %s" $expected .Release.Namespace $expected) -}}
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

{{/*
The webhooks' path token: webhooks.token when given; else, when the token lives in a Kubernetes Secret
(webhooks.tokenKubeSecret, the stack's default), the one already in that Secret (an upgrade keeps it) or a new random
one. Generated once per render and kept in .Values, so the Secret and the webhook URLs carry the same token.
*/}}
{{- define "capi-serverless.webhookToken" -}}
{{- if not .Values.webhooks.token -}}
{{- if not .Values.webhooks.tokenKubeSecret -}}
{{- fail "webhooks.token is required: the path token from the store named by webhooks.tokenSecretArn or webhooks.tokenParameterName, passed with --set-string webhooks.token=… (docs/deploy.md)" -}}
{{- end -}}
{{- $ref := include "capi-serverless.webhookTokenSecretRef" . | fromYaml -}}
{{- $existing := lookup "v1" "Secret" $ref.namespace $ref.name -}}
{{- $current := "" -}}
{{- if and $existing $existing.data $existing.data.token -}}
{{- $current = $existing.data.token | b64dec | trim | splitList " " | first | trim -}}
{{- end -}}
{{- $_ := set .Values.webhooks "token" ($current | default (randAlphaNum 48)) -}}
{{- end -}}
{{- .Values.webhooks.token -}}
{{- end }}

{{/* webhooks.tokenKubeSecret (`<namespace>/<name>`) as a dict with namespace and name. */}}
{{- define "capi-serverless.webhookTokenSecretRef" -}}
{{- $parts := splitList "/" .Values.webhooks.tokenKubeSecret -}}
{{- if ne (len $parts) 2 }}{{ fail (printf "webhooks.tokenKubeSecret must be <namespace>/<name>, got %q" .Values.webhooks.tokenKubeSecret) }}{{ end -}}
{{- dict "namespace" (index $parts 0) "name" (index $parts 1) | toYaml -}}
{{- end }}
