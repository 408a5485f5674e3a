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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

const (
	deploymentTemplate = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, generation: 7}
spec: {replicas: 5}
`
	jobTemplate = `
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: shop, generation: 1}
`
	podTemplate = `
apiVersion: v1
kind: Pod
metadata: {name: probe, namespace: shop}
`
)

func TestAggregateStatus(t *testing.T) {
	type clusterStatus struct {
		cluster string
		applied bool
		status  string
	}
	cases := []struct {
		name     string
		template string
		items    []clusterStatus
		want     string // YAML of the status
		wantOK   bool
	}{
		{
			name:     "deployment applied everywhere",
			template: deploymentTemplate,
			items: []clusterStatus{
				{"east", true, `{observedGeneration: 7, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: [{type: Available, status: "True"}]}`},
				{"west", true, `{observedGeneration: 7, replicas: 2, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 1}`},
			},
			want: `{observedGeneration: 7, replicas: 5, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4, unavailableReplicas: 1,
				conditions: [{type: Available, status: "False", reason: MinimumReplicasUnavailable, message: "cluster west: Deployment does not have minimum availability.", lastTransitionTime: null, lastUpdateTime: null}, {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: "cluster east is rolling out the Deployment.", lastTransitionTime: null, lastUpdateTime: null}]}`,
			wantOK: true,
		},
		{
			name:     "deployment not yet applied in one cluster",
			template: deploymentTemplate,
			items: []clusterStatus{
				{"east", true, `{replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3}`},
				{"west", false, ``},
			},
			want: `{observedGeneration: 6, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3,
				conditions: [{type: Available, status: "False", reason: MinimumReplicasUnavailable, message: "cluster east: Deployment does not have minimum availability.", lastTransitionTime: null, lastUpdateTime: null}, {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: "cluster east is rolling out the Deployment.", lastTransitionTime: null, lastUpdateTime: null}]}`,
			wantOK: true,
		},
		{
			name:     "deployment with an undecodable status",
			template: deploymentTemplate,
			items: []clusterStatus{
				{"east", true, `{observedGeneration: 7, replicas: 3, readyReplicas: 3}`},
				{"west", true, `{replicas: "two", readyReplicas: 2}`},
				{"north", true, `[1, 2]`},
			},
			want: `{observedGeneration: 6, replicas: 3, readyReplicas: 3,
				conditions: [{type: Available, status: "False", reason: MinimumReplicasUnavailable, message: "cluster east: Deployment does not have minimum availability.", lastTransitionTime: null, lastUpdateTime: null}, {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: "cluster east is rolling out the Deployment.", lastTransitionTime: null, lastUpdateTime: null}]}`,
			wantOK: true,
		},
		{
			name:     "deployment in no cluster",
			template: deploymentTemplate,
			want:     `{}`,
			wantOK:   true,
		},
		{
			name:     "statefulset",
			template: "{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: db, generation: 2}}",
			items: []clusterStatus{
				{"east", true, `{observedGeneration: 2, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3, currentRevision: db-1}`},
				{"west", true, `{observedGeneration: 2, replicas: 2, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1, availableReplicas: 1}`},
			},
			want:   `{observedGeneration: 2, replicas: 5, readyReplicas: 4, currentReplicas: 4, updatedReplicas: 4, availableReplicas: 4}`,
			wantOK: true,
		},
		{
			name:     "daemonset",
			template: "{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: agent, generation: 3}}",
			items: []clusterStatus{
				{"east", true, `{observedGeneration: 3, currentNumberScheduled: 4, numberMisscheduled: 1, desiredNumberScheduled: 4, numberReady: 4, updatedNumberScheduled: 4, numberAvailable: 4}`},
				{"west", true, `{observedGeneration: 3, currentNumberScheduled: 2, desiredNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberUnavailable: 1}`},
			},
			want:   `{observedGeneration: 3, currentNumberScheduled: 6, numberMisscheduled: 1, desiredNumberScheduled: 7, numberReady: 6, updatedNumberScheduled: 6, numberAvailable: 6, numberUnavailable: 1}`,
			wantOK: true,
		},
		{
			name:     "replicaset",
			template: "{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: web-5d8f, generation: 1}}",
			items: []clusterStatus{
				{"east", true, `{observedGeneration: 1, replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2}`},
				{"west", true, `{observedGeneration: 1, replicas: 1, fullyLabeledReplicas: 1}`},
			},
			want:   `{observedGeneration: 1, replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 2}`,
			wantOK: true,
		},
		{
			name:     "pod disruption budget",
			template: "{apiVersion: policy/v1, kind: PodDisruptionBudget, metadata: {name: web, generation: 1}}",
			items: []clusterStatus{
				{"east", true, `{observedGeneration: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1, disruptedPods: {web-0: "2026-03-01T10:00:00Z"},
					conditions: [{type: DisruptionAllowed, status: "True", reason: SufficientPods, message: "", lastTransitionTime: "2026-03-01T10:00:00Z"}]}`},
				{"west", true, `{observedGeneration: 1, currentHealthy: 1, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 0,
					conditions: [{type: DisruptionAllowed, status: "False", reason: InsufficientPods, message: "not enough", lastTransitionTime: "2026-03-01T11:00:00Z"}]}`},
			},
			want: `{observedGeneration: 1, currentHealthy: 4, desiredHealthy: 4, expectedPods: 6, disruptionsAllowed: 1,
				conditions: [{type: DisruptionAllowed, status: "False", reason: InsufficientPods, message: "cluster west: not enough", lastTransitionTime: "2026-03-01T11:00:00Z", observedGeneration: 1}]}`,
			wantOK: true,
		},
		{
			name:     "service ingress from all clusters without duplicates",
			template: "{apiVersion: v1, kind: Service, metadata: {name: web}, spec: {type: LoadBalancer}}",
			items: []clusterStatus{
				{"west", true, `{loadBalancer: {ingress: [{ip: 198.51.100.7}, {hostname: shared.example.com}]}}`},
				{"east", true, `{loadBalancer: {ingress: [{ip: 203.0.113.10, ipMode: VIP}, {hostname: shared.example.com}]}}`},
				{"north", true, `{loadBalancer: {}}`},
			},
			want:   `{loadBalancer: {ingress: [{ip: 203.0.113.10, ipMode: VIP}, {hostname: shared.example.com}, {ip: 198.51.100.7}]}}`,
			wantOK: true,
		},
		{
			name:     "service without load balancers",
			template: "{apiVersion: v1, kind: Service, metadata: {name: web}}",
			items:    []clusterStatus{{"east", true, `{loadBalancer: {}}`}},
			want:     `{loadBalancer: {}}`,
			wantOK:   true,
		},
		{
			name:     "job running",
			template: jobTemplate,
			items: []clusterStatus{
				{"east", true, `{active: 2, ready: 1, startTime: "2026-03-01T10:05:00Z"}`},
				{"west", true, `{active: 1, succeeded: 1, ready: 1, startTime: "2026-03-01T10:00:00Z"}`},
				{"north", true, `{active: 1, startTime: "2026-03-01T10:07:00Z"}`},
			},
			want:   `{active: 4, succeeded: 1, ready: 2, startTime: "2026-03-01T10:00:00Z"}`,
			wantOK: true,
		},
		{
			name:     "job complete everywhere",
			template: jobTemplate,
			items: []clusterStatus{
				{"east", true, `
succeeded: 1
ready: 0
startTime: "2026-03-01T10:05:00Z"
completionTime: "2026-03-01T10:20:00Z"
conditions:
- {type: Complete, status: "True", reason: CompletionsReached, lastTransitionTime: "2026-03-01T10:20:00Z"}
`},
				{"west", true, `
succeeded: 1
ready: 0
startTime: "2026-03-01T10:00:00Z"
completionTime: "2026-03-01T10:30:00Z"
conditions:
- {type: SuccessCriteriaMet, status: "True", lastTransitionTime: "2026-03-01T10:30:00Z"}
- {type: Complete, status: "True", reason: CompletionsReached, lastTransitionTime: "2026-03-01T10:30:00Z"}
`},
			},
			want: `
succeeded: 2
ready: 0
startTime: "2026-03-01T10:00:00Z"
completionTime: "2026-03-01T10:30:00Z"
conditions:
- type: Complete
  status: "True"
  lastProbeTime: "2026-03-01T10:30:00Z"
  lastTransitionTime: "2026-03-01T10:30:00Z"
  reason: CompletedInAllClusters
  message: Job completed in all 2 clusters
`,
			wantOK: true,
		},
		{
			name:     "job complete in one cluster and failed in another",
			template: jobTemplate,
			items: []clusterStatus{
				{"east", true, `
succeeded: 1
completionTime: "2026-03-01T10:20:00Z"
conditions:
- {type: Complete, status: "True", lastTransitionTime: "2026-03-01T10:20:00Z"}
`},
				{"west", true, `
failed: 7
conditions:
- {type: FailureTarget, status: "True", reason: BackoffLimitExceeded, lastTransitionTime: "2026-03-01T10:10:00Z"}
- {type: Failed, status: "True", reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit, lastTransitionTime: "2026-03-01T10:10:00Z"}
`},
			},
			want: `
succeeded: 1
failed: 7
conditions:
- type: Failed
  status: "True"
  lastProbeTime: "2026-03-01T10:10:00Z"
  lastTransitionTime: "2026-03-01T10:10:00Z"
  reason: FailedInCluster
  message: "Job failed in cluster west: Job has reached the specified backoff limit"
`,
			wantOK: true,
		},
		{
			name:     "job complete in clusters that reported, one did not",
			template: jobTemplate,
			items: []clusterStatus{
				{"east", true, `{succeeded: 1, completionTime: "2026-03-01T10:20:00Z", conditions: [{type: Complete, status: "True"}]}`},
				{"west", false, ``},
			},
			want:   `{succeeded: 1}`,
			wantOK: true,
		},
		{
			name:     "pod ready everywhere",
			template: podTemplate,
			items: []clusterStatus{
				{"east", true, `{phase: Running, podIP: 10.0.0.1, conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T10:02:00Z"}]}`},
				{"west", true, `{phase: Running, conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T10:03:00Z"}]}`},
			},
			want:   `{phase: Running, conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T10:03:00Z", lastProbeTime: null}]}`,
			wantOK: true,
		},
		{
			name:     "pod pending in one cluster",
			template: podTemplate,
			items: []clusterStatus{
				{"west", true, `{phase: Pending, conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]}`},
				{"east", true, `{phase: Running, conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T10:02:00Z"}]}`},
			},
			want: `
phase: Pending
conditions:
- {type: Ready, status: "False", lastProbeTime: null, lastTransitionTime: "2026-03-01T10:02:00Z", reason: NotReadyInCluster, message: Pod is not ready in west}
`,
			wantOK: true,
		},
		{
			name:     "pod failed in one cluster, unreported in another",
			template: podTemplate,
			items: []clusterStatus{
				{"east", true, `{phase: Failed, conditions: [{type: Ready, status: "False", reason: PodFailed}]}`},
				{"north", false, ``},
				{"west", true, `{phase: Running, conditions: [{type: Ready, status: "True"}]}`},
			},
			want: `
phase: Failed
conditions:
- {type: Ready, status: "False", lastProbeTime: null, lastTransitionTime: null, reason: NotReadyInCluster, message: "Pod is not ready in east, north"}
`,
			wantOK: true,
		},
		{
			name:     "pod unreported everywhere",
			template: podTemplate,
			items:    []clusterStatus{{"east", false, ``}, {"west", true, `{phase: Surprising}`}},
			want: `
phase: Pending
conditions:
- {type: Ready, status: "False", lastProbeTime: null, lastTransitionTime: null, reason: NotReadyInCluster, message: "Pod is not ready in east, west"}
`,
			wantOK: true,
		},
		{
			name:     "pod in no cluster",
			template: podTemplate,
			want:     `{}`,
			wantOK:   true,
		},
		{
			name:     "configmap keeps per-cluster status",
			template: "{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}}",
			items:    []clusterStatus{{"east", true, ``}},
		},
		{
			name:     "custom resource keeps per-cluster status",
			template: "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}",
			items:    []clusterStatus{{"east", true, `{phase: Ready}`}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var items []federationv1alpha1.AggregatedStatusItem
			for _, cs := range c.items {
				items = append(items, item(t, cs.cluster, cs.applied, cs.status))
			}
			got, ok := AggregateStatus(fromYAML(t, c.template), items, false)
			if ok != c.wantOK {
				t.Fatalf("AggregateStatus() ok = %v, want %v", ok, c.wantOK)
			}
			var want map[string]any
			if c.want != "" {
				want = mapFromYAML(t, c.want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("AggregateStatus() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("nil template", func(t *testing.T) {
		if got, ok := AggregateStatus(nil, nil, false); ok || got != nil {
			t.Errorf("AggregateStatus(nil) = %v, %v; want nil, false", got, ok)
		}
	})
	t.Run("items left in their order", func(t *testing.T) {
		items := []federationv1alpha1.AggregatedStatusItem{
			item(t, "west", true, `{replicas: 1}`),
			item(t, "east", true, `{replicas: 2}`),
		}
		AggregateStatus(fromYAML(t, deploymentTemplate), items, false)
		if items[0].ClusterName != "west" {
			t.Error("AggregateStatus reordered the caller's items")
		}
	})
}

func TestRefused(t *testing.T) {
	tmpl := &unstructured.Unstructured{}
	tmpl.SetAPIVersion("apps/v1")
	tmpl.SetKind("Deployment")
	tmpl.SetGeneration(4)
	status := map[string]any{"observedGeneration": int64(3), "conditions": []any{
		map[string]any{"type": "Available", "status": "True"},
		map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
	}}
	Refused(tmpl, status, []string{"cluster member1: field is immutable"})
	if status["observedGeneration"] != int64(4) {
		t.Errorf("observedGeneration %v, want the template's 4", status["observedGeneration"])
	}
	conds := status["conditions"].([]any)
	if len(conds) != 2 || conds[0].(map[string]any)["type"] != "Available" {
		t.Fatalf("conditions %v", conds)
	}
	p := conds[1].(map[string]any)
	if p["type"] != "Progressing" || p["status"] != "False" || p["reason"] != "ProgressDeadlineExceeded" ||
		!strings.Contains(p["message"].(string), "cluster member1: field is immutable") {
		t.Errorf("Progressing %v", p)
	}
	other := map[string]any{"observedGeneration": int64(3)}
	tmpl.SetKind("StatefulSet")
	Refused(tmpl, other, []string{"cluster member1: no"})
	if other["observedGeneration"] != int64(3) || other["conditions"] != nil {
		t.Errorf("a StatefulSet's status changed: %v", other)
	}
}
