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

package fleet

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func yamlObject(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
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

func TestWithHostDefaults(t *testing.T) {
	for _, tc := range []struct{ name, obj, answer, want string }{{
		name: "a Deployment: defaults added, unknown fields dropped, its own values kept, a grown list not taken",
		obj: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns, uid: u, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.27", bogus: x, resources: {limits: {cpu: 1000m}}}]
status: {replicas: 3}
`,
		answer: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web-x7k2p, namespace: fed-system, uid: host, labels: {app: web, injected: "true"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate}
  template:
    metadata: {labels: {app: web}, annotations: {webhook: was-here}}
    spec:
      restartPolicy: Always
      containers: [{name: web, image: "mirror/nginx:1.27", imagePullPolicy: IfNotPresent, resources: {limits: {cpu: "1"}}}]
status: {}
`,
		want: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns, uid: u, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate}
  template:
    metadata: {labels: {app: web}, annotations: {webhook: was-here}}
    spec:
      restartPolicy: Always
      containers: [{name: web, image: "nginx:1.27", imagePullPolicy: IfNotPresent, resources: {limits: {cpu: 1000m}}}]
status: {replicas: 3}
`,
	}, {
		name: "a sidecar is not taken",
		obj: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: a, image: a}]}
`,
		answer: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: a, image: a}, {name: proxy, image: proxy}], restartPolicy: Always}
`,
		want: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: a, image: a}], restartPolicy: Always}
`,
	}, {
		name: "a Secret's data is the host's, stringData folded in",
		obj: `apiVersion: v1
kind: Secret
metadata: {name: s}
data: {b: b2xk}
stringData: {pw: hunter2, b: new}
`,
		answer: `apiVersion: v1
kind: Secret
metadata: {name: s}
data: {b: bmV3, pw: aHVudGVyMg==}
type: Opaque
`,
		want: `apiVersion: v1
kind: Secret
metadata: {name: s}
data: {b: bmV3, pw: aHVudGVyMg==}
type: Opaque
`,
	}, {
		name: "a Service keeps the fleet's cluster IP and takes no node port",
		obj: `apiVersion: v1
kind: Service
metadata: {name: s}
spec: {type: NodePort, clusterIP: 240.1.2.3, clusterIPs: [240.1.2.3], ports: [{port: 80}, {port: 81, nodePort: 30081}]}
`,
		answer: `apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  type: NodePort
  clusterIP: 10.96.0.0
  clusterIPs: [10.96.0.0]
  sessionAffinity: None
  ports: [{port: 80, protocol: TCP, targetPort: 80, nodePort: 31999}, {port: 81, protocol: TCP, targetPort: 81, nodePort: 30081}]
`,
		want: `apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  type: NodePort
  clusterIP: 240.1.2.3
  clusterIPs: [240.1.2.3]
  sessionAffinity: None
  ports: [{port: 80, protocol: TCP, targetPort: 80}, {port: 81, protocol: TCP, targetPort: 81, nodePort: 30081}]
`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			obj := yamlObject(t, tc.obj)
			withHostDefaults(obj, yamlObject(t, tc.answer))
			if want := yamlObject(t, tc.want); !equality.Semantic.DeepEqual(obj.Object, want.Object) {
				t.Errorf("got\n%v\nwant\n%v", obj.Object, want.Object)
			}
		})
	}
	obj := yamlObject(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
	withHostDefaults(obj, nil)
	if d, _, _ := unstructured.NestedStringMap(obj.Object, "data"); d["a"] != "b" {
		t.Errorf("no answer changed the object: %v", obj.Object)
	}
}

func TestFoldStringData(t *testing.T) {
	obj := yamlObject(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {b: b2xk, c: Yw==}\nstringData: {pw: hunter2, b: new}\n")
	if _, err := foldStringData(obj); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"pw": "aHVudGVyMg==", "b": "bmV3", "c": "Yw=="}
	if !equality.Semantic.DeepEqual(obj.Object["data"], want) || obj.Object["stringData"] != nil {
		t.Errorf("folded: %v, want data %v and no stringData", obj.Object, want)
	}
	bad := yamlObject(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {n: 1}\n")
	if _, err := foldStringData(bad); err == nil {
		t.Error("a number in stringData is folded")
	}
}

func TestNativeDecoder(t *testing.T) {
	obj := yamlObject(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {a: b}}
bogus: 1
spec:
  replicas: 0
  paused: false
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      hostNetwork: true
      containers: [{name: web, image: nginx, bogus: x}]
`)
	dropped, err := nativeDecoder(obj.GroupVersionKind())(obj)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bogus", "spec.template.spec.containers[0].bogus"}; !equality.Semantic.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
	want := yamlObject(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {a: b}}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      hostNetwork: true
      containers: [{name: web, image: nginx}]
`)
	if !equality.Semantic.DeepEqual(obj.Object, want.Object) {
		t.Errorf("decoded\n%v\nwant\n%v", obj.Object, want.Object)
	}
}
