{{/* fed-apiserver runs in fed-system: the server's well-known namespace. */}}
{{- define "fed.namespace" -}}fed-system{{- end }}

{{- define "fed.name" -}}fed-apiserver{{- end }}

{{/* Labels of every object. */}}
{{- define "fed.labels" -}}
app.kubernetes.io/part-of: fed
{{- if .Values.helmLabels }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- end }}

{{/* The pods' labels, which the Service, the PodDisruptionBudget and the workload select. */}}
{{- define "fed.selectorLabels" -}}
app.kubernetes.io/name: fed-apiserver
{{- end }}

{{/* Replicas: the value, else 1 for badger and 2 for etcd3; badger refuses more than 1. */}}
{{- define "fed.replicas" -}}
{{- $mode := .Values.storage.mode -}}
{{- $r := .Values.replicas -}}
{{- if eq $mode "badger" -}}
{{- if and (not (kindIs "invalid" $r)) (gt (int $r) 1) -}}
{{- fail (printf "storage.mode=badger runs one replica (Badger is an embedded database that one process opens); replicas is %d: use storage.mode=etcd3 for several" (int $r)) -}}
{{- end -}}
1
{{- else -}}
{{- if kindIs "invalid" $r }}2{{ else }}{{ int $r }}{{ end -}}
{{- end -}}
{{- end }}

{{/* The Secret of the serving certificate. */}}
{{- define "fed.tlsSecret" -}}
{{- if .Values.tls.existingSecret -}}
{{ .Values.tls.existingSecret }}
{{- else -}}
fed-apiserver-serving
{{- end -}}
{{- end }}

{{/* The APIServices' caBundle (base64 PEM), or "". */}}
{{- define "fed.caBundle" -}}
{{- if .Values.apiService.caBundle -}}
{{ .Values.apiService.caBundle }}
{{- else if .Values.tls.ca -}}
{{ .Values.tls.ca | b64enc }}
{{- end -}}
{{- end }}

{{/* The pod template of the StatefulSet (badger) or the Deployment (etcd3). */}}
{{- define "fed.podTemplate" -}}
metadata:
  labels:
    {{- include "fed.labels" . | nindent 4 }}
    {{- include "fed.selectorLabels" . | nindent 4 }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: fed-apiserver
  {{- if and .Values.sharePort (not .Values.hostNetwork) }}
  {{- fail "sharePort shares a node's port among replicas: it needs hostNetwork=true" }}
  {{- end }}
  {{- if .Values.hostNetwork }}
  hostNetwork: true
  dnsPolicy: ClusterFirstWithHostNet
  {{- end }}
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  containers:
  - name: fed-apiserver
    image: {{ printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) | quote }}
    imagePullPolicy: {{ .Values.image.pullPolicy }}
    args:
    - --secure-port={{ .Values.securePort }}
    - --tls-cert-file=/etc/fed-apiserver/tls/tls.crt
    - --tls-private-key-file=/etc/fed-apiserver/tls/tls.key
    {{- if .Values.sharePort }}
    - --permit-port-sharing
    {{- end }}
    {{- if eq .Values.storage.mode "badger" }}
    - --storage-backend=badger
    - --data-dir=/var/lib/fed-apiserver
    {{- else }}
    {{- if not .Values.storage.etcd.servers }}
    {{- fail "storage.mode=etcd3 needs storage.etcd.servers (etcd's client URLs)" }}
    {{- end }}
    - --storage-backend=etcd3
    - --etcd-servers={{ join "," .Values.storage.etcd.servers }}
    - --etcd-prefix={{ .Values.storage.etcd.prefix }}
    {{- if .Values.storage.etcd.certsSecret }}
    - --etcd-cafile=/etc/fed-apiserver/etcd/ca.crt
    - --etcd-certfile=/etc/fed-apiserver/etcd/tls.crt
    - --etcd-keyfile=/etc/fed-apiserver/etcd/tls.key
    {{- end }}
    - --leader-elect=true
    - --leader-elect-lease-duration={{ .Values.leaderElection.leaseDuration }}
    - --leader-elect-renew-deadline={{ .Values.leaderElection.renewDeadline }}
    - --leader-elect-retry-period={{ .Values.leaderElection.retryPeriod }}
    {{- end }}
    {{- range .Values.extraArgs }}
    - {{ . }}
    {{- end }}
    {{- with .Values.extraEnv }}
    env:
    {{- range . }}
    - name: {{ .name }}
      {{- if .valueFrom }}
      valueFrom:
        {{- toYaml .valueFrom | nindent 8 }}
      {{- else }}
      {{- /* a string, as a container's env wants, whatever --set made of it */}}
      value: {{ toString .value | quote }}
      {{- end }}
    {{- end }}
    {{- end }}
    {{- if not .Values.sharePort }}
    ports:
    - name: https
      containerPort: {{ .Values.securePort }}
    {{- end }}
    readinessProbe:
      httpGet:
        scheme: HTTPS
        path: /readyz
        port: {{ .Values.securePort }}
      periodSeconds: 5
      failureThreshold: 3
    livenessProbe:
      httpGet:
        scheme: HTTPS
        path: /livez
        port: {{ .Values.securePort }}
      initialDelaySeconds: 30
      periodSeconds: 10
      failureThreshold: 6
    resources:
      {{- toYaml .Values.resources | nindent 6 }}
    securityContext:
      {{- toYaml .Values.securityContext | nindent 6 }}
    volumeMounts:
    - name: tls
      mountPath: /etc/fed-apiserver/tls
      readOnly: true
    - name: data
      mountPath: /var/lib/fed-apiserver
    - name: tmp
      mountPath: /tmp
    {{- if and (eq .Values.storage.mode "etcd3") .Values.storage.etcd.certsSecret }}
    - name: etcd-certs
      mountPath: /etc/fed-apiserver/etcd
      readOnly: true
    {{- end }}
  volumes:
  - name: tls
    secret:
      secretName: {{ include "fed.tlsSecret" . }}
  - name: tmp
    emptyDir: {}
  {{- if eq .Values.storage.mode "etcd3" }}
  # The search cache (--search-cache-dir, under --data-dir): each replica keeps its own.
  - name: data
    emptyDir: {}
  {{- if .Values.storage.etcd.certsSecret }}
  - name: etcd-certs
    secret:
      secretName: {{ .Values.storage.etcd.certsSecret }}
  {{- end }}
  {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
