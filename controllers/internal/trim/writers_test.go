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

package trim

import (
	"testing"

	"sigs.k8s.io/yaml"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// defaulted is a Deployment as the fleet stores it: what kubectl create sent (its manager's
// fields, a second port among them that no manager owns), the host's defaults, and
// replicas a scale set.
const defaulted = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: web}
  managedFields:
  - manager: kubectl-create
    operation: Update
    apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata: {f:labels: {.: {}, f:app: {}}}
      f:spec:
        f:selector: {}
        f:template:
          f:metadata: {f:labels: {.: {}, f:app: {}}}
          f:spec:
            f:containers:
              k:{"name":"web"}:
                .: {}
                f:image: {}
                f:name: {}
                f:ports:
                  .: {}
                  k:{"containerPort":80,"protocol":"TCP"}: {.: {}, f:containerPort: {}}
            f:tolerations: {}
  - manager: kubectl
    operation: Update
    apiVersion: apps/v1
    subresource: scale
    fieldsType: FieldsV1
    fieldsV1: {f:spec: {f:replicas: {}}}
spec:
  replicas: 3
  revisionHistoryLimit: 10
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}}
  template:
    metadata: {creationTimestamp: null, labels: {app: web}}
    spec:
      restartPolicy: Always
      dnsPolicy: ClusterFirst
      tolerations: [{key: a, operator: Exists}]
      containers:
      - name: web
        image: nginx:1.27
        imagePullPolicy: IfNotPresent
        terminationMessagePath: /dev/termination-log
        ports:
        - {containerPort: 80, protocol: TCP}
        - {containerPort: 9090, protocol: TCP}
`

const written = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  labels: {app: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      tolerations: [{key: a, operator: Exists}]
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - {containerPort: 80, protocol: TCP}
`

func TestWritersOnly(t *testing.T) {
	obj := mustObject(t, defaulted)
	WritersOnly(obj)
	want := mustObject(t, written)
	if !equality.Semantic.DeepEqual(obj.Object, want.Object) {
		t.Errorf("writersOnly kept\n%v\nwant\n%v", obj.Object, want.Object)
	}
}

func TestWritersOnlyKeepsWhole(t *testing.T) {
	for name, y := range map[string]string{
		"no managedFields":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: {x: 1}\n",
		"an entry without fields": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, managedFields: [{manager: m}]}\nspec: {x: 1}\n",
		"an entry it cannot read": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, managedFields: [{manager: m, fieldsType: FieldsV1, fieldsV1: {x: 1}}]}\nspec: {x: 1}\n",
	} {
		obj := mustObject(t, y)
		WritersOnly(obj)
		if x, _, _ := unstructured.NestedInt64(obj.Object, "spec", "x"); x != 1 {
			t.Errorf("%s: spec.x dropped: %v", name, obj.Object)
		}
	}
	// A Secret written with stringData owns stringData; the host folded it into data.
	s := mustObject(t, `apiVersion: v1
kind: Secret
metadata:
  name: s
  managedFields: [{manager: kubectl, operation: Update, fieldsType: FieldsV1, fieldsV1: {f:stringData: {.: {}, f:pw: {}}}}]
data: {pw: aHVudGVyMg==}
type: Opaque
`)
	WritersOnly(s)
	if pw, _, _ := unstructured.NestedString(s.Object, "data", "pw"); pw != "aHVudGVyMg==" {
		t.Errorf("a Secret's data dropped: %v", s.Object)
	}
	if _, found := s.Object["type"]; found {
		t.Errorf("a Secret's defaulted type kept: %v", s.Object)
	}
}

func mustObject(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	return obj
}
