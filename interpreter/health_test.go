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

package interpreter

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func TestHealth(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want federationv1alpha1.ResourceHealth
	}{
		{
			name: "deployment rolled out",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, generation: 4}
spec:
  replicas: 3
status:
  observedGeneration: 4
  replicas: 3
  updatedReplicas: 3
  readyReplicas: 3
  availableReplicas: 3
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}
`,
			want: healthy,
		},
		{
			name: "deployment replicas unset default to one",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 1}
spec: {}
status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1}
`,
			want: healthy,
		},
		{
			name: "deployment scaled to zero",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 2}
spec: {replicas: 0}
status: {observedGeneration: 2}
`,
			want: healthy,
		},
		{
			name: "deployment mid rollout",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 5}
spec: {replicas: 3}
status: {observedGeneration: 5, replicas: 4, updatedReplicas: 1, availableReplicas: 3, unavailableReplicas: 1}
`,
			want: unhealthy,
		},
		{
			name: "deployment old pods still running",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 5}
spec: {replicas: 3}
status: {observedGeneration: 5, replicas: 4, updatedReplicas: 3, availableReplicas: 3}
`,
			want: unhealthy,
		},
		{
			name: "deployment generation not yet observed",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 6}
spec: {replicas: 3}
status: {observedGeneration: 5, replicas: 3, updatedReplicas: 3, availableReplicas: 3}
`,
			want: unhealthy,
		},
		{
			name: "deployment past its progress deadline",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 2}
spec: {replicas: 0}
status:
  observedGeneration: 2
  conditions:
  - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded}
`,
			want: unhealthy,
		},
		{
			name: "deployment without status",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 1}
spec: {replicas: 2}
`,
			want: unhealthy,
		},
		{
			name: "deployment with wrong types",
			yaml: `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {replicas: three}
status: [1, 2]
`,
			want: unknown,
		},
		{
			name: "statefulset ready and updated",
			yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, generation: 2}
spec: {replicas: 3, serviceName: db}
status: {observedGeneration: 2, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3, currentRevision: db-7c9, updateRevision: db-7c9}
`,
			want: healthy,
		},
		{
			name: "statefulset replica not ready",
			yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, generation: 2}
spec: {replicas: 3}
status: {observedGeneration: 2, replicas: 3, readyReplicas: 2, updatedReplicas: 3}
`,
			want: unhealthy,
		},
		{
			name: "statefulset rolling update in progress",
			yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, generation: 3}
spec: {replicas: 3, updateStrategy: {type: RollingUpdate}}
status: {observedGeneration: 3, replicas: 3, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1}
`,
			want: unhealthy,
		},
		{
			name: "statefulset partitioned rollout done above the partition",
			yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, generation: 3}
spec: {replicas: 5, updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 3}}}
status: {observedGeneration: 3, replicas: 5, readyReplicas: 5, currentReplicas: 3, updatedReplicas: 2}
`,
			want: healthy,
		},
		{
			name: "statefulset on delete with old pods",
			yaml: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, generation: 3}
spec: {replicas: 2, updateStrategy: {type: OnDelete}}
status: {observedGeneration: 3, replicas: 2, readyReplicas: 2, currentReplicas: 2}
`,
			want: healthy,
		},
		{
			name: "daemonset everywhere",
			yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, generation: 1}
status: {observedGeneration: 1, desiredNumberScheduled: 4, currentNumberScheduled: 4, numberReady: 4, updatedNumberScheduled: 4, numberAvailable: 4}
`,
			want: healthy,
		},
		{
			name: "daemonset pod unavailable",
			yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, generation: 1}
status: {observedGeneration: 1, desiredNumberScheduled: 4, currentNumberScheduled: 4, numberReady: 3, updatedNumberScheduled: 4, numberAvailable: 3, numberUnavailable: 1}
`,
			want: unhealthy,
		},
		{
			name: "daemonset rolling update in progress",
			yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, generation: 2}
status: {observedGeneration: 2, desiredNumberScheduled: 4, numberReady: 4, updatedNumberScheduled: 2, numberAvailable: 4}
`,
			want: unhealthy,
		},
		{
			name: "daemonset on delete with old pods",
			yaml: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, generation: 2}
spec: {updateStrategy: {type: OnDelete}}
status: {observedGeneration: 2, desiredNumberScheduled: 4, numberReady: 4, updatedNumberScheduled: 2, numberAvailable: 4}
`,
			want: healthy,
		},
		{
			name: "replicaset available",
			yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f, generation: 1}
spec: {replicas: 2}
status: {observedGeneration: 1, replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2}
`,
			want: healthy,
		},
		{
			name: "replicaset quota exceeded",
			yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f, generation: 1}
spec: {replicas: 2}
status:
  observedGeneration: 1
  replicas: 2
  availableReplicas: 2
  conditions:
  - {type: ReplicaFailure, status: "True", reason: FailedCreate, message: exceeded quota}
`,
			want: unhealthy,
		},
		{
			name: "replicaset short of replicas",
			yaml: `
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d8f, generation: 1}
spec: {replicas: 2}
status: {observedGeneration: 1, replicas: 2, availableReplicas: 1}
`,
			want: unhealthy,
		},
		{
			name: "job running",
			yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: report}
status: {active: 1, ready: 1, startTime: "2026-03-01T10:00:00Z"}
`,
			want: healthy,
		},
		{
			name: "job complete",
			yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: report}
status:
  succeeded: 1
  conditions:
  - {type: SuccessCriteriaMet, status: "True"}
  - {type: Complete, status: "True"}
`,
			want: healthy,
		},
		{
			name: "job failed",
			yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: report}
status:
  failed: 7
  conditions:
  - {type: FailureTarget, status: "True", reason: BackoffLimitExceeded}
  - {type: Failed, status: "True", reason: BackoffLimitExceeded}
`,
			want: unhealthy,
		},
		{
			name: "job about to fail",
			yaml: `
apiVersion: batch/v1
kind: Job
metadata: {name: report}
status:
  active: 1
  conditions:
  - {type: FailureTarget, status: "True", reason: DeadlineExceeded}
`,
			want: unhealthy,
		},
		{
			name: "cronjob exists",
			yaml: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec: {schedule: "0 2 * * *"}
`,
			want: healthy,
		},
		{
			name: "pod running and ready",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0}
status:
  phase: Running
  conditions:
  - {type: PodScheduled, status: "True"}
  - {type: Ready, status: "True"}
`,
			want: healthy,
		},
		{
			name: "pod running not ready",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "False", reason: ContainersNotReady}
`,
			want: unhealthy,
		},
		{
			name: "pod pending",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0}
status: {phase: Pending}
`,
			want: unhealthy,
		},
		{
			name: "pod succeeded",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: migrate}
status: {phase: Succeeded}
`,
			want: healthy,
		},
		{
			name: "pod failed",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: migrate}
status: {phase: Failed}
`,
			want: unhealthy,
		},
		{
			name: "pod on lost node",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0}
status: {phase: Unknown}
`,
			want: unknown,
		},
		{
			name: "pod without status",
			yaml: `
apiVersion: v1
kind: Pod
metadata: {name: web-0}
`,
			want: unhealthy,
		},
		{
			name: "service cluster ip",
			yaml: `
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {type: ClusterIP, ports: [{port: 80}]}
status: {loadBalancer: {}}
`,
			want: healthy,
		},
		{
			name: "service load balancer pending",
			yaml: `
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {type: LoadBalancer, ports: [{port: 80}]}
status: {loadBalancer: {}}
`,
			want: unhealthy,
		},
		{
			name: "service load balancer provisioned",
			yaml: `
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {type: LoadBalancer}
status: {loadBalancer: {ingress: [{ip: 203.0.113.10}]}}
`,
			want: healthy,
		},
		{
			name: "service with malformed ingress",
			yaml: `
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {type: LoadBalancer}
status: {loadBalancer: {ingress: 203.0.113.10}}
`,
			want: unknown,
		},
		{
			name: "ingress with address",
			yaml: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
status: {loadBalancer: {ingress: [{hostname: lb.example.com}]}}
`,
			want: healthy,
		},
		{
			name: "ingress without address",
			yaml: `
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
`,
			want: unknown,
		},
		{
			name: "pdb satisfied",
			yaml: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, generation: 1}
spec: {minAvailable: 2}
status: {observedGeneration: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1}
`,
			want: healthy,
		},
		{
			name: "pdb short of healthy pods",
			yaml: `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, generation: 1}
spec: {minAvailable: 2}
status: {observedGeneration: 1, currentHealthy: 1, desiredHealthy: 2, expectedPods: 3}
`,
			want: unhealthy,
		},
		{
			name: "pvc bound",
			yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}
status: {phase: Bound, capacity: {storage: 10Gi}}
`,
			want: healthy,
		},
		{
			name: "pvc pending",
			yaml: `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
status: {phase: Pending}
`,
			want: unhealthy,
		},
		{
			name: "namespace active",
			yaml: `
apiVersion: v1
kind: Namespace
metadata: {name: shop}
status: {phase: Active}
`,
			want: healthy,
		},
		{
			name: "namespace terminating",
			yaml: `
apiVersion: v1
kind: Namespace
metadata: {name: shop, deletionTimestamp: "2026-03-01T10:00:00Z"}
status: {phase: Terminating}
`,
			want: unhealthy,
		},
		{
			name: "crd established",
			yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
status:
  conditions:
  - {type: NamesAccepted, status: "True"}
  - {type: Established, status: "True"}
`,
			want: healthy,
		},
		{
			name: "crd names not accepted",
			yaml: `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
status:
  conditions:
  - {type: NamesAccepted, status: "False", reason: MultipleNamesNotAllowed}
  - {type: Established, status: "False"}
`,
			want: unhealthy,
		},
		{
			name: "configmap",
			yaml: `
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
`,
			want: healthy,
		},
		{
			name: "secret",
			yaml: `
apiVersion: v1
kind: Secret
metadata: {name: creds}
type: Opaque
`,
			want: healthy,
		},
		{
			name: "service account",
			yaml: `
apiVersion: v1
kind: ServiceAccount
metadata: {name: web}
`,
			want: healthy,
		},
		{
			name: "role",
			yaml: `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
`,
			want: healthy,
		},
		{
			name: "custom resource ready",
			yaml: `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls}
status:
  conditions:
  - {type: Ready, status: "True", reason: Ready}
`,
			want: healthy,
		},
		{
			name: "custom resource not ready",
			yaml: `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web-tls}
status:
  conditions:
  - {type: Ready, status: "False", reason: Pending}
`,
			want: unhealthy,
		},
		{
			name: "custom resource without conditions",
			yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
status: {phase: Whatever}
`,
			want: unknown,
		},
		{
			name: "custom resource with malformed conditions",
			yaml: `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
status: {conditions: [Ready, {type: 7}, {type: Ready, status: true}]}
`,
			want: unknown,
		},
		{
			name: "a Deployment of another group is not an apps Deployment",
			yaml: `
apiVersion: example.com/v1
kind: Deployment
metadata: {name: d, generation: 9}
spec: {replicas: 3}
`,
			want: unknown,
		},
		{
			name: "no kind at all",
			yaml: `
metadata: {name: x}
`,
			want: unknown,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Health(fromYAML(t, c.yaml)); got != c.want {
				t.Errorf("Health() = %s, want %s", got, c.want)
			}
		})
	}
	t.Run("numbers decoded as floats", func(t *testing.T) {
		obj := &unstructured.Unstructured{}
		err := yaml.Unmarshal([]byte(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, generation: 2}
spec: {replicas: 2}
status: {observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2}
`), &obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		if got := Health(obj); got != healthy {
			t.Errorf("Health() = %s, want %s", got, healthy)
		}
	})
	t.Run("nil object", func(t *testing.T) {
		if got := Health(nil); got != unknown {
			t.Errorf("Health(nil) = %s, want %s", got, unknown)
		}
	})
}
