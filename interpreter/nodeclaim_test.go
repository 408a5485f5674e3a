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

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// TestReplicasNodeClaim: a Deployment's node constraints reach spec.replicaRequirements.nodeClaim,
// which the scheduler matches against the members' nodes.
func TestReplicasNodeClaim(t *testing.T) {
	for _, c := range []struct {
		name string
		spec string // the pod spec's fields beside its containers
		want *federationv1alpha1.NodeClaim
	}{
		{"none", ``, nil},
		{"nodeSelector, required affinity and tolerations", `
      nodeSelector: {disk: ssd}
      tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a, b]}]}]
          preferredDuringSchedulingIgnoredDuringExecution:
          - {weight: 1, preference: {matchExpressions: [{key: fast, operator: Exists}]}}`,
			&federationv1alpha1.NodeClaim{
				NodeSelector: map[string]string{"disk": "ssd"},
				Tolerations:  []corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
				HardNodeAffinity: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}}}}},
			}},
		{"tolerations alone", `
      tolerations: [{key: spot, operator: Equal, value: "true", effect: NoExecute}]`,
			&federationv1alpha1.NodeClaim{Tolerations: []corev1.Toleration{
				{Key: "spot", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoExecute}}}},
		{"preferred affinity alone is no claim", `
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - {weight: 1, preference: {matchExpressions: [{key: fast, operator: Exists}]}}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, req := Replicas(fromYAML(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: a, image: a, resources: {requests: {cpu: "10"}}}]`+c.spec))
			if req == nil {
				t.Fatal("no requirements")
			}
			if !apiequality.Semantic.DeepEqual(req.NodeClaim, c.want) {
				t.Errorf("node claim %+v, want %+v", req.NodeClaim, c.want)
			}
		})
	}
}
