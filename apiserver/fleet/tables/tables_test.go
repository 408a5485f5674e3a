/*
Copyright 2026 The fed Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package tables

import (
	"context"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

var (
	apps  = func(kind string) schema.GroupKind { return schema.GroupKind{Group: "apps", Kind: kind} }
	batch = func(kind string) schema.GroupKind { return schema.GroupKind{Group: "batch", Kind: kind} }
	core  = func(kind string) schema.GroupKind { return schema.GroupKind{Kind: kind} }
	rbac  = func(kind string) schema.GroupKind {
		return schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: kind}
	}
	ingress          = schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"}
	pdb              = schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"}
	hpa              = schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}
	crd              = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	containerHeaders = []string{"w:CONTAINERS", "w:IMAGES"}
)

// headers are the headers kubectl prints for each kind, "w:" marking the
// columns only `kubectl get -o wide` shows.
var headers = map[schema.GroupKind][]string{
	apps("Deployment"):  slices.Concat([]string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}, containerHeaders, []string{"w:SELECTOR"}),
	apps("ReplicaSet"):  slices.Concat([]string{"NAME", "DESIRED", "CURRENT", "READY", "AGE"}, containerHeaders, []string{"w:SELECTOR"}),
	apps("StatefulSet"): slices.Concat([]string{"NAME", "READY", "AGE"}, containerHeaders),
	apps("DaemonSet"): slices.Concat([]string{"NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"},
		containerHeaders, []string{"w:SELECTOR"}),
	batch("Job"):           slices.Concat([]string{"NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"}, containerHeaders, []string{"w:SELECTOR"}),
	batch("CronJob"):       slices.Concat([]string{"NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"}, containerHeaders, []string{"w:SELECTOR"}),
	core("Pod"):            {"NAME", "READY", "STATUS", "RESTARTS", "AGE", "w:IP", "w:NODE", "w:NOMINATED NODE", "w:READINESS GATES"},
	core("Service"):        {"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "w:SELECTOR"},
	core("ConfigMap"):      {"NAME", "DATA", "AGE"},
	core("Secret"):         {"NAME", "TYPE", "DATA", "AGE"},
	core("ServiceAccount"): {"NAME", "SECRETS", "AGE"},
	core("Namespace"):      {"NAME", "STATUS", "AGE"},
	core("PersistentVolumeClaim"): {"NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE",
		"w:VOLUMEMODE"},
	core("Event"):              {"LAST SEEN", "TYPE", "REASON", "OBJECT", "w:SUBOBJECT", "w:SOURCE", "MESSAGE", "w:FIRST SEEN", "w:COUNT", "w:NAME"},
	ingress:                    {"NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"},
	rbac("Role"):               {"NAME", "CREATED AT"},
	rbac("ClusterRole"):        {"NAME", "CREATED AT"},
	rbac("RoleBinding"):        {"NAME", "ROLE", "AGE", "w:USERS", "w:GROUPS", "w:SERVICEACCOUNTS"},
	rbac("ClusterRoleBinding"): {"NAME", "ROLE", "AGE", "w:USERS", "w:GROUPS", "w:SERVICEACCOUNTS"},
	pdb:                        {"NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"},
	hpa:                        {"NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"},
	crd:                        {"NAME", "CREATED AT"},
}

func TestColumns(t *testing.T) {
	for gk := range convertors {
		if _, ok := headers[gk]; !ok {
			t.Errorf("no headers for %s", gk)
		}
	}
	for gk, want := range headers {
		t.Run(gk.String(), func(t *testing.T) {
			c := For(gk)
			if c == nil {
				t.Fatal("no convertor")
			}
			table, err := c.ConvertToTable(context.Background(), &unstructured.UnstructuredList{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, d := range table.ColumnDefinitions {
				name := strings.ToUpper(d.Name)
				if d.Priority == 1 {
					name = "w:" + name
				}
				got = append(got, name)
				if wantFormat := d.Name == "Name" || i == 0 && gk.Kind != "Event"; (d.Format == "name") != wantFormat {
					t.Errorf("column %s: format %q", d.Name, d.Format)
				}
				if d.Type == "" || d.Description == "" {
					t.Errorf("column %s: type %q, description %q", d.Name, d.Type, d.Description)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("header:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// timePlaceholder is {{d}}, replaced by the time d ago in RFC 3339, or
// {{d.micro}} in RFC 3339 with microseconds.
var timePlaceholder = regexp.MustCompile(`\{\{(\w+?)(\.micro)?\}\}`)

// template parses y into an Unstructured.
func template(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	now := time.Now()
	y = timePlaceholder.ReplaceAllStringFunc(y, func(s string) string {
		m := timePlaceholder.FindStringSubmatch(s)
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		if m[2] != "" {
			return now.Add(-d).UTC().Format(metav1.RFC3339Micro)
		}
		return now.Add(-d).UTC().Format(time.RFC3339)
	})
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestRows(t *testing.T) {
	tests := []struct {
		name      string
		kind      schema.GroupKind
		yaml      string
		want      []any
		completed bool
	}{
		{name: "deployment", kind: apps("Deployment"), yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, resourceVersion: "5", creationTimestamp: "{{1h}}"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
      - {name: proxy, image: "envoy:v1"}
status: {replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2}
`, want: []any{"web", "2/3", int64(3), int64(2), "60m", "nginx,proxy", "nginx:1.27,envoy:v1", "app=web"}},
		{name: "deployment without status", kind: apps("Deployment"), yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: bare}
spec: {template: {spec: {containers: [{name: app, image: app}]}}}
`, want: []any{"bare", "0/1", int64(0), int64(0), "<unknown>", "app", "app", ""}},
		{name: "replicaset", kind: apps("ReplicaSet"), yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f, creationTimestamp: "{{1h}}"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web, pod-template-hash: 5d8f}}
  template: {spec: {containers: [{name: nginx, image: nginx}]}}
status: {replicas: 2, readyReplicas: 1}
`, want: []any{"web-5d8f", int64(2), int64(2), int64(1), "60m", "nginx", "nginx", "app=web,pod-template-hash=5d8f"}},
		{name: "statefulset", kind: apps("StatefulSet"), yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, creationTimestamp: "{{1h}}"}
spec: {template: {spec: {containers: [{name: postgres, image: "postgres:16"}]}}}
status: {readyReplicas: 1}
`, want: []any{"db", "1/1", "60m", "postgres", "postgres:16"}},
		{name: "daemonset", kind: apps("DaemonSet"), yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, creationTimestamp: "{{1h}}"}
spec:
  selector: {matchExpressions: [{key: app, operator: In, values: [agent]}]}
  template:
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: agent, image: "agent:v2"}]
status: {desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2}
`, want: []any{"agent", int64(3), int64(3), int64(2), int64(3), int64(2), "kubernetes.io/os=linux", "60m", "agent", "agent:v2", "app in (agent)"}},
		{name: "daemonset template", kind: apps("DaemonSet"), yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
`, want: []any{"agent", int64(0), int64(0), int64(0), int64(0), int64(0), "<none>", "<unknown>", "", "", "<none>"}},
		{name: "running job", kind: batch("Job"), yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, creationTimestamp: "{{1h}}"}
spec:
  completions: 3
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: abc}}
  template: {spec: {containers: [{name: migrate, image: "migrate:v1"}]}}
status: {startTime: "{{1h}}", succeeded: 1}
`, want: []any{"migrate", "Running", "1/3", "60m", "60m", "migrate", "migrate:v1", "batch.kubernetes.io/controller-uid=abc"}},
		{name: "complete job", kind: batch("Job"), yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: once, creationTimestamp: "{{1h}}"}
status:
  startTime: "2026-01-01T00:00:00Z"
  completionTime: "2026-01-01T00:00:42Z"
  succeeded: 1
  conditions: [{type: SuccessCriteriaMet, status: "True"}, {type: Complete, status: "True"}]
`, want: []any{"once", "Complete", "1/1", "42s", "60m", "", "", "<none>"}},
		{name: "suspended job", kind: batch("Job"), yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: later}
spec: {parallelism: 2, suspend: true}
status: {conditions: [{type: Failed, status: "False"}, {type: Suspended, status: "True"}]}
`, want: []any{"later", "Suspended", "0/1 of 2", "", "<unknown>", "", "", "<none>"}},
		{name: "cronjob", kind: batch("CronJob"), yaml: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: backup, creationTimestamp: "{{1h}}"}
spec:
  schedule: "*/5 * * * *"
  timeZone: Etc/UTC
  jobTemplate: {spec: {template: {spec: {containers: [{name: backup, image: "backup:v1"}]}}}}
status: {active: [{name: backup-1}, {name: backup-2}], lastScheduleTime: "{{10m}}"}
`, want: []any{"backup", "*/5 * * * *", "Etc/UTC", "False", int64(2), "10m", "60m", "backup", "backup:v1", "<none>"}},
		{name: "suspended cronjob", kind: batch("CronJob"), yaml: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: paused}
spec: {schedule: "@daily", suspend: true}
`, want: []any{"paused", "@daily", "<none>", "True", int64(0), "<none>", "<unknown>", "", "", "<none>"}},
		{name: "pod", kind: core("Pod"), yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-1, creationTimestamp: "{{1h}}"}
spec:
  nodeName: node-1
  readinessGates: [{conditionType: example.com/ready}]
  containers: [{name: app, image: "app:v1"}, {name: log, image: "fluent:v1"}]
status:
  phase: Running
  podIP: 10.0.0.5
  podIPs: [{ip: 10.0.0.5}, {ip: "fd00::5"}]
  conditions: [{type: Ready, status: "False"}, {type: example.com/ready, status: "True"}]
  containerStatuses:
  - name: app
    ready: true
    restartCount: 2
    state: {running: {startedAt: "{{10m}}"}}
    lastState: {terminated: {exitCode: 1, finishedAt: "{{10m}}"}}
  - {name: log, ready: false, restartCount: 0, state: {waiting: {reason: CrashLoopBackOff}}}
`, want: []any{"web-1", "1/2", "CrashLoopBackOff", "2 (10m ago)", "60m", "10.0.0.5", "node-1", "<none>", "1/1"}},
		{name: "pod template", kind: core("Pod"), yaml: `
apiVersion: v1
kind: Pod
metadata: {name: bare}
spec: {containers: [{name: app, image: app}]}
`, want: []any{"bare", "0/1", "Pending", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"}},
		{name: "initializing pod", kind: core("Pod"), yaml: `
apiVersion: v1
kind: Pod
metadata: {name: init}
spec:
  initContainers: [{name: sidecar, image: proxy, restartPolicy: Always}, {name: migrate, image: migrate}]
  containers: [{name: app, image: app}]
status:
  phase: Pending
  initContainerStatuses:
  - {name: sidecar, ready: true, started: true, restartCount: 1, state: {running: {}}}
  - {name: migrate, ready: false, restartCount: 3, state: {waiting: {reason: CrashLoopBackOff}}}
  containerStatuses: [{name: app, ready: false, state: {waiting: {reason: PodInitializing}}}]
`, want: []any{"init", "1/2", "Init:CrashLoopBackOff", "4", "<unknown>", "<none>", "<none>", "<none>", "<none>"}},
		{name: "completed pod", kind: core("Pod"), completed: true, yaml: `
apiVersion: v1
kind: Pod
metadata: {name: done}
spec: {containers: [{name: app, image: app}]}
status:
  phase: Succeeded
  containerStatuses: [{name: app, state: {terminated: {exitCode: 0, reason: Completed}}}]
`, want: []any{"done", "0/1", "Completed", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"}},
		{name: "terminating pod", kind: core("Pod"), yaml: `
apiVersion: v1
kind: Pod
metadata: {name: gone, deletionTimestamp: "{{1m}}"}
spec: {containers: [{name: app, image: app}]}
status:
  phase: Running
  containerStatuses: [{name: app, ready: true, state: {running: {}}}]
`, want: []any{"gone", "1/1", "Terminating", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"}},
		{name: "service template", kind: core("Service"), yaml: `
apiVersion: v1
kind: Service
metadata: {name: web, creationTimestamp: "{{1h}}"}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`, want: []any{"web", "ClusterIP", "<none>", "<none>", "80/TCP", "60m", "app=web"}},
		{name: "nodeport service", kind: core("Service"), yaml: `
apiVersion: v1
kind: Service
metadata: {name: dns}
spec:
  type: NodePort
  clusterIP: 10.96.0.10
  clusterIPs: [10.96.0.10]
  ports: [{port: 80, nodePort: 30080, protocol: TCP}, {port: 53, protocol: UDP}]
`, want: []any{"dns", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,53/UDP", "<unknown>", "<none>"}},
		{name: "pending load balancer", kind: core("Service"), yaml: `
apiVersion: v1
kind: Service
metadata: {name: lb}
spec: {type: LoadBalancer, ports: [{port: 443}]}
`, want: []any{"lb", "LoadBalancer", "<none>", "<pending>", "443/TCP", "<unknown>", "<none>"}},
		{name: "load balancer", kind: core("Service"), yaml: `
apiVersion: v1
kind: Service
metadata: {name: lb}
spec: {type: LoadBalancer, clusterIP: 10.96.1.1, externalIPs: [5.6.7.8], ports: [{port: 443, nodePort: 31443}]}
status: {loadBalancer: {ingress: [{ip: 1.2.3.4}, {hostname: lb.example.com}]}}
`, want: []any{"lb", "LoadBalancer", "10.96.1.1", "1.2.3.4,lb.example.com,5.6.7.8", "443:31443/TCP", "<unknown>", "<none>"}},
		{name: "headless external name", kind: core("Service"), yaml: `
apiVersion: v1
kind: Service
metadata: {name: db}
spec: {type: ExternalName, externalName: db.example.com}
`, want: []any{"db", "ExternalName", "<none>", "db.example.com", "<none>", "<unknown>", "<none>"}},
		{name: "configmap", kind: core("ConfigMap"), yaml: `
apiVersion: v1
kind: ConfigMap
metadata: {name: config, creationTimestamp: "{{1h}}"}
data: {a: x, b: y}
binaryData: {c: AA==}
`, want: []any{"config", int64(3), "60m"}},
		{name: "secret", kind: core("Secret"), yaml: `
apiVersion: v1
kind: Secret
metadata: {name: creds, creationTimestamp: "{{1h}}"}
data: {user: eA==}
stringData: {user: x, password: y}
`, want: []any{"creds", "Opaque", int64(2), "60m"}},
		{name: "tls secret", kind: core("Secret"), yaml: `
apiVersion: v1
kind: Secret
metadata: {name: tls}
type: kubernetes.io/tls
`, want: []any{"tls", "kubernetes.io/tls", int64(0), "<unknown>"}},
		{name: "serviceaccount", kind: core("ServiceAccount"), yaml: `
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, creationTimestamp: "{{1h}}"}
secrets: [{name: builder-token}]
`, want: []any{"builder", int64(1), "60m"}},
		{name: "namespace", kind: core("Namespace"), yaml: `
apiVersion: v1
kind: Namespace
metadata: {name: team-a, creationTimestamp: "{{1h}}"}
`, want: []any{"team-a", "Active", "60m"}},
		{name: "terminating namespace", kind: core("Namespace"), yaml: `
apiVersion: v1
kind: Namespace
metadata: {name: old}
status: {phase: Terminating}
`, want: []any{"old", "Terminating", "<unknown>"}},
		{name: "pvc template", kind: core("PersistentVolumeClaim"), yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, creationTimestamp: "{{1h}}"}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}, storageClassName: standard}
`, want: []any{"data", "Pending", "", "", "", "standard", "<unset>", "60m", "<unset>"}},
		{name: "bound pvc", kind: core("PersistentVolumeClaim"), yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, annotations: {volume.beta.kubernetes.io/storage-class: fast}}
spec: {volumeName: pv-1, volumeMode: Filesystem, volumeAttributesClassName: gold}
status: {phase: Bound, accessModes: [ReadWriteMany, ReadWriteOnce], capacity: {storage: 10Gi}}
`, want: []any{"data", "Bound", "pv-1", "10Gi", "RWO,RWX", "fast", "gold", "<unknown>", "Filesystem"}},
		{name: "event", kind: core("Event"), yaml: `
apiVersion: v1
kind: Event
metadata: {name: web-1.17a, creationTimestamp: "{{1h}}"}
involvedObject: {kind: Pod, name: web-1, fieldPath: "spec.containers{app}"}
type: Warning
reason: BackOff
message: "Back-off restarting failed container\n"
source: {component: kubelet, host: node-1}
firstTimestamp: "{{1h}}"
lastTimestamp: "{{10m}}"
count: 5
`, want: []any{"10m", "Warning", "BackOff", "pod/web-1", "spec.containers{app}", "kubelet, node-1",
			"Back-off restarting failed container", "60m", int64(5), "web-1.17a"}},
		{name: "series event", kind: core("Event"), yaml: `
apiVersion: v1
kind: Event
metadata: {name: n.17b}
involvedObject: {kind: Node}
type: Normal
reason: Rebooted
message: rebooted
eventTime: "{{1h.micro}}"
series: {count: 3, lastObservedTime: "{{5m.micro}}"}
reportingComponent: node-controller
reportingInstance: cp-1
`, want: []any{"5m", "Normal", "Rebooted", "node", "", "node-controller, cp-1", "rebooted", "60m", int64(3), "n.17b"}},
		{name: "ingress", kind: ingress, yaml: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, creationTimestamp: "{{1h}}"}
spec:
  ingressClassName: nginx
  tls: [{hosts: [a.example.com]}]
  rules: [{host: a.example.com}, {}, {host: b.example.com}]
status: {loadBalancer: {ingress: [{ip: 1.2.3.4}, {hostname: lb.example.com}]}}
`, want: []any{"web", "nginx", "a.example.com,b.example.com", "1.2.3.4,lb.example.com", "80, 443", "60m"}},
		{name: "ingress template", kind: ingress, yaml: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: many}
spec:
  rules: [{host: a.example.com}, {host: b.example.com}, {host: c.example.com}, {}, {host: d.example.com}]
`, want: []any{"many", "<none>", "a.example.com,b.example.com,c.example.com + 2 more...", "", "80", "<unknown>"}},
		{name: "clusterrole", kind: rbac("ClusterRole"), yaml: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: view, creationTimestamp: "2026-01-02T03:04:05Z"}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
`, want: []any{"view", "2026-01-02T03:04:05Z"}},
		{name: "role", kind: rbac("Role"), yaml: `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: edit, creationTimestamp: "2026-01-02T03:04:05+02:00"}
`, want: []any{"edit", "2026-01-02T01:04:05Z"}},
		{name: "rolebinding", kind: rbac("RoleBinding"), yaml: `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: view, namespace: team-a, creationTimestamp: "{{1h}}"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: User, name: alice}
- {kind: Group, name: devs}
- {kind: ServiceAccount, namespace: team-a, name: ci}
- {kind: User, name: bob}
`, want: []any{"view", "ClusterRole/view", "60m", "alice, bob", "devs", "team-a/ci"}},
		{name: "clusterrolebinding", kind: rbac("ClusterRoleBinding"), yaml: `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: admins}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: Group, name: admins}]
`, want: []any{"admins", "ClusterRole/cluster-admin", "<unknown>", "", "admins", ""}},
		{name: "pdb", kind: pdb, yaml: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, creationTimestamp: "{{1h}}"}
spec: {minAvailable: 2}
status: {disruptionsAllowed: 1}
`, want: []any{"web", "2", "N/A", int64(1), "60m"}},
		{name: "pdb percent", kind: pdb, yaml: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db}
spec: {maxUnavailable: 25%}
`, want: []any{"db", "N/A", "25%", int64(0), "<unknown>"}},
		{name: "hpa v2", kind: hpa, yaml: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, creationTimestamp: "{{1h}}"}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 10
  metrics:
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}
  - {type: Pods, pods: {metric: {name: packets}, target: {type: AverageValue, averageValue: 1k}}}
  - {type: External, external: {metric: {name: queue}, target: {type: Value, value: 30}}}
status:
  currentReplicas: 3
  currentMetrics: [{type: Resource, resource: {name: cpu, current: {averageUtilization: 20, averageValue: 100m}}}]
`, want: []any{"web", "Deployment/web", "cpu: 20%/50%, <unknown>/1k + 1 more...", "1", int64(10), int64(3), "60m"}},
		{name: "hpa v2 values", kind: hpa, yaml: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: queue}
spec:
  scaleTargetRef: {kind: Deployment, name: worker}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - {type: Object, object: {metric: {name: rps}, describedObject: {kind: Service, name: web}, target: {type: AverageValue, averageValue: 100}}}
  - {type: ContainerResource, containerResource: {name: memory, container: app, target: {type: AverageValue, averageValue: 500Mi}}}
status:
  currentMetrics:
  - {type: Object, object: {metric: {name: rps}, current: {averageValue: 80}}}
  - {type: ContainerResource, containerResource: {name: memory, container: app, current: {averageValue: 300Mi}}}
`, want: []any{"queue", "Deployment/worker", "80/100 (avg), memory: 300Mi/500Mi", "2", int64(5), int64(0), "<unknown>"}},
		{name: "hpa v1", kind: hpa, yaml: `
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec: {scaleTargetRef: {kind: Deployment, name: web}, minReplicas: 2, maxReplicas: 4, targetCPUUtilizationPercentage: 70}
status: {currentReplicas: 2, currentCPUUtilizationPercentage: 35}
`, want: []any{"web", "Deployment/web", "cpu: 35%/70%", "2", int64(4), int64(2), "<unknown>"}},
		{name: "hpa template", kind: hpa, yaml: `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 4}
`, want: []any{"web", "Deployment/web", "cpu: <unknown>/80%", "1", int64(4), int64(0), "<unknown>"}},
		{name: "crd", kind: crd, yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com, creationTimestamp: "2026-01-02T03:04:05Z"}
spec: {group: example.com, names: {kind: Widget, plural: widgets}, scope: Namespaced}
`, want: []any{"widgets.example.com", "2026-01-02T03:04:05Z"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := template(t, tc.yaml)
			u.SetResourceVersion("42")
			table, err := For(tc.kind).ConvertToTable(context.Background(), u, &metav1.TableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(table.Rows) != 1 {
				t.Fatalf("%d rows", len(table.Rows))
			}
			row := table.Rows[0]
			if !reflect.DeepEqual(row.Cells, tc.want) {
				t.Errorf("cells:\n got %#v\nwant %#v", row.Cells, tc.want)
			}
			if len(row.Cells) != len(table.ColumnDefinitions) {
				t.Errorf("%d cells for %d columns", len(row.Cells), len(table.ColumnDefinitions))
			}
			if row.Object.Object != u {
				t.Errorf("row object %v", row.Object.Object)
			}
			if table.ResourceVersion != "42" {
				t.Errorf("resourceVersion %q", table.ResourceVersion)
			}
			completed := slices.ContainsFunc(row.Conditions, func(c metav1.TableRowCondition) bool {
				return c.Type == metav1.RowCompleted && c.Status == metav1.ConditionTrue
			})
			if completed != tc.completed {
				t.Errorf("row conditions %v", row.Conditions)
			}
			// The same row straight from the object's JSON, where the kind has a JSON printer.
			if p := ForJSON(tc.kind); p != nil {
				data, err := u.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				got, m, err := p.PrintJSON(data)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Cells, tc.want) || !reflect.DeepEqual(got.Conditions, row.Conditions) {
					t.Errorf("from JSON: cells %#v, conditions %v", got.Cells, got.Conditions)
				}
				if m == nil || m.Name != u.GetName() || m.ResourceVersion != "42" {
					t.Errorf("from JSON: metadata %+v", m)
				}
				if !reflect.DeepEqual(p.Columns(), table.ColumnDefinitions) {
					t.Errorf("from JSON: columns %v", p.Columns())
				}
			}
		})
	}
}

func TestList(t *testing.T) {
	list := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{
		*template(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: v}}"),
		*template(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: b, creationTimestamp: '{{1h}}'}}"),
	}}
	list.SetResourceVersion("9")
	list.SetContinue("next")
	list.SetRemainingItemCount(ptr.To[int64](3))
	for _, noHeaders := range []bool{false, true} {
		table, err := For(core("ConfigMap")).ConvertToTable(context.Background(), list, &metav1.TableOptions{NoHeaders: noHeaders})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(table.ColumnDefinitions); (got == 0) != noHeaders {
			t.Errorf("noHeaders %v: %d columns", noHeaders, got)
		}
		want := []metav1.TableRow{
			{Cells: []any{"a", int64(1), "<unknown>"}, Object: runtime.RawExtension{Object: &list.Items[0]}},
			{Cells: []any{"b", int64(0), "60m"}, Object: runtime.RawExtension{Object: &list.Items[1]}},
		}
		if !reflect.DeepEqual(table.Rows, want) {
			t.Errorf("rows: got %v, want %v", table.Rows, want)
		}
		if table.ResourceVersion != "9" || table.Continue != "next" || table.RemainingItemCount == nil || *table.RemainingItemCount != 3 {
			t.Errorf("list meta %+v", table.ListMeta)
		}
	}
}

func TestUnknownKind(t *testing.T) {
	for _, gk := range []schema.GroupKind{apps("ControllerRevision"), {Kind: "Deployment"}, {Group: "example.com", Kind: "Pod"}} {
		if c := For(gk); c != nil {
			t.Errorf("For(%s) = %v, want nil", gk, c)
		}
	}
}

func TestErrors(t *testing.T) {
	c := For(apps("Deployment"))
	if _, err := c.ConvertToTable(context.Background(), &metav1.Status{}, nil); err == nil {
		t.Error("printed a Status")
	}
	bad := template(t, "{apiVersion: apps/v1, kind: Deployment, metadata: {name: bad}, spec: {replicas: three}}")
	if _, err := c.ConvertToTable(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), `Deployment "bad"`) {
		t.Errorf("malformed template: error %v", err)
	}
}
