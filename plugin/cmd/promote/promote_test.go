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

package promote

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

func fromYAML(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

func TestPromotedTemplate(t *testing.T) {
	tests := []struct {
		name     string
		gvk      schema.GroupVersionKind
		in, want string
	}{{
		name: "deployment",
		gvk:  schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		in: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  uid: 1b4e28ba-2fa1-11d2-883f-0016d3cca427
  resourceVersion: "42"
  generation: 3
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {app: web}
  annotations:
    deployment.kubernetes.io/revision: "3"
    team: shop
  managedFields: [{manager: kubectl, operation: Apply}]
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
status: {replicas: 2}
`,
		want: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
  annotations:
    team: shop
    federation.fedhq.io/promoted-from: member1
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`,
	}, {
		name: "service",
		gvk:  schema.GroupVersionKind{Version: "v1", Kind: "Service"},
		in: `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, finalizers: [service.kubernetes.io/load-balancer-cleanup]}
spec: {clusterIP: 10.0.0.7, clusterIPs: [10.0.0.7], ports: [{port: 80}], type: LoadBalancer}
status: {loadBalancer: {}}
`,
		want: `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, annotations: {federation.fedhq.io/promoted-from: member1}}
spec: {ports: [{port: 80}], type: LoadBalancer}
`,
	}, {
		name: "headless service keeps None",
		gvk:  schema.GroupVersionKind{Version: "v1", Kind: "Service"},
		in: `apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec: {clusterIP: None, clusterIPs: [None]}
`,
		want: `apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop, annotations: {federation.fedhq.io/promoted-from: member1}}
spec: {clusterIP: None, clusterIPs: [None]}
`,
	}, {
		name: "job",
		gvk:  schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"},
		in: `apiVersion: batch/v1
kind: Job
metadata:
  name: once
  namespace: shop
  labels: {batch.kubernetes.io/controller-uid: u, controller-uid: u, job-name: once, batch.kubernetes.io/job-name: once}
spec:
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: u}}
  template:
    metadata:
      labels: {batch.kubernetes.io/controller-uid: u, controller-uid: u, job-name: once, batch.kubernetes.io/job-name: once, app: once}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
`,
		want: `apiVersion: batch/v1
kind: Job
metadata:
  name: once
  namespace: shop
  annotations: {federation.fedhq.io/promoted-from: member1}
spec:
  template:
    metadata:
      labels: {app: once}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
`,
	}, {
		name: "job with a manual selector",
		gvk:  schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"},
		in: `apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: shop}
spec:
  manualSelector: true
  selector: {matchLabels: {app: once}}
  template: {metadata: {labels: {app: once}}}
`,
		want: `apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: shop, annotations: {federation.fedhq.io/promoted-from: member1}}
spec:
  manualSelector: true
  selector: {matchLabels: {app: once}}
  template: {metadata: {labels: {app: once}}}
`,
	}, {
		name: "controlled pod",
		gvk:  schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		in: `apiVersion: v1
kind: Pod
metadata:
  name: web-abc
  namespace: shop
  labels: {app: web, pod-template-hash: abc}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, uid: u, controller: true}]
spec: {nodeName: node-1, containers: [{name: web, image: nginx}]}
`,
		want: `apiVersion: v1
kind: Pod
metadata:
  name: web-abc
  namespace: shop
  labels: {app: web}
  annotations: {federation.fedhq.io/promoted-from: member1}
spec: {nodeName: node-1, containers: [{name: web, image: nginx}]}
`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := fromYAML(t, tt.in)
			before := in.DeepCopy()
			got := promotedTemplate(in, tt.gvk, "member1")
			if diff := cmp.Diff(fromYAML(t, tt.want).Object, got.Object); diff != "" {
				t.Errorf("template (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before.Object, in.Object); diff != "" {
				t.Errorf("the object read was changed:\n%s", diff)
			}
		})
	}
}

func TestPromotePolicy(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if got := promotePolicyName("web", gvk.Kind); got != "web-deployment" {
		t.Errorf("policy name %q", got)
	}
	want := federationv1alpha1.PropagationSpec{
		ResourceSelectors:  []federationv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}},
		Placement:          federationv1alpha1.Placement{ClusterAffinity: &federationv1alpha1.ClusterAffinity{ClusterNames: []string{"member2"}}},
		ConflictResolution: federationv1alpha1.ConflictOverwrite,
	}
	if diff := cmp.Diff(want, promotePolicySpec(gvk, "web", "member2")); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	if got := resourceRef(gvk, "web"); got != "deployment.apps/web" {
		t.Errorf("resourceRef = %q", got)
	}
	if got := resourceRef(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "c"); got != "configmap/c" {
		t.Errorf("resourceRef = %q", got)
	}
}

func TestPromoteValidate(t *testing.T) {
	tests := []struct {
		clusters []string
		args     []string
		wantErr  string
	}{
		{[]string{"member1"}, []string{"deployment", "web"}, ""},
		{[]string{"member1"}, []string{"deployment/web"}, ""},
		{nil, []string{"deployment", "web"}, "must be given with -C"},
		{[]string{"member1", "member2"}, []string{"deployment", "web"}, "exactly one member cluster"},
		{[]string{"member1"}, []string{"deployment"}, "a name must be given"},
		{[]string{"member1"}, nil, "exactly one object"},
		{[]string{"member1"}, []string{"deployment", "web", "api"}, "exactly one object"},
		{[]string{"member1"}, []string{"deployment/web", "api"}, "not both"},
	}
	for _, tt := range tests {
		err := (&PromoteOptions{Clusters: tt.clusters, Args: tt.args}).Validate()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("-C %v %v: %v, want %q", tt.clusters, tt.args, err, tt.wantErr)
		}
	}
}
