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

package registrytest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedhq/fed/apis/federation"
)

func manifest(json string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(json)} }

// Work is the test case of works.
func Work() Case[*federation.Work] {
	return Case[*federation.Work]{
		Valid: func() *federation.Work {
			return &federation.Work{ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
				Spec: federation.WorkSpec{Workload: federation.WorkloadTemplate{Manifests: []runtime.RawExtension{
					manifest(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx","namespace":"default"},"spec":{"replicas":2}}`),
				}}}}
		},
		ChangeSpec: func(w *federation.Work) {
			w.Spec.Workload.Manifests = append(w.Spec.Workload.Manifests,
				manifest(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nginx","namespace":"default"}}`))
		},
		ChangeStatus: func(w *federation.Work) {
			w.Status.Conditions = []metav1.Condition{condition(federation.WorkConditionApplied, metav1.ConditionTrue)}
			w.Status.ManifestStatuses = []federation.ManifestStatus{{Health: federation.ResourceHealthy,
				Identifier: federation.ResourceIdentifier{Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespace: "default", Name: "nginx"}}}
		},
		BreakSpec: func(w *federation.Work) {
			w.Spec.Workload.Manifests[0] = manifest(`{"kind":"Deployment","metadata":{"name":"x"}}`)
		},
		BrokenSpecField:   "spec.workload.manifests[0].apiVersion",
		BreakStatus:       func(w *federation.Work) { w.Status.ManifestStatuses[0].Identifier.Ordinal = 5 },
		BrokenStatusField: "status.manifestStatuses[0].identifier.ordinal",
		Columns:           []string{"Name", "Workload-Kind", "Applied", "Age"},
		Row:               map[string]any{"Name": Name, "Workload-Kind": "Deployment", "Applied": "True"},
	}
}
