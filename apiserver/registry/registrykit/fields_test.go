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

package registrykit

import (
	"maps"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedhq/fed/apis/cluster"
)

var testFields = Fields[*cluster.Cluster]{
	{Label: "spec.region", Value: func(c *cluster.Cluster) string { return c.Spec.Region }},
}

func TestAttrFunc(t *testing.T) {
	c := &cluster.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"env": "prod"}},
		Spec: cluster.ClusterSpec{Region: "eu"}}
	tests := []struct {
		namespaced bool
		want       fields.Set
	}{
		{namespaced: false, want: fields.Set{"metadata.name": "a", "spec.region": "eu"}},
		{namespaced: true, want: fields.Set{"metadata.name": "a", "metadata.namespace": "ns", "spec.region": "eu"}},
	}
	for _, tc := range tests {
		gotLabels, gotFields, err := testFields.attrFunc(tc.namespaced)(c)
		if err != nil || !labels.Equals(gotLabels, labels.Set{"env": "prod"}) || !maps.Equal(gotFields, tc.want) {
			t.Errorf("namespaced %t: got %v %v %v, want %v", tc.namespaced, gotLabels, gotFields, err, tc.want)
		}
	}
	if _, _, err := testFields.attrFunc(false)(&metav1.Status{}); err == nil {
		t.Error("want an error for a Status")
	}
}

func TestConvertFieldLabel(t *testing.T) {
	for label, ok := range map[string]bool{"metadata.name": true, "metadata.namespace": true, "spec.region": true, "spec.zone": false} {
		gotLabel, gotValue, err := testFields.ConvertFieldLabel(label, "v")
		if (err == nil) != ok || (ok && (gotLabel != label || gotValue != "v")) {
			t.Errorf("%s: got %q=%q, %v; want accepted %t", label, gotLabel, gotValue, err, ok)
		}
	}
}
