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

package override

import (
	"strings"
	"testing"
)

const web = `
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
  labels: {app: web, tier: front}
  annotations: {owner: team-a}
spec:
  replicas: 1
  template:
    spec:
      initContainers:
      - name: setup
        image: busybox
        command: [sh, -c, "true"]
      containers:
      - name: web
        image: nginx
        command: [nginx]
        args: [-g, "daemon off;"]
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {memory: 128Mi}
      - name: sidecar
        image: envoy
`

func TestCommandArgsOverrider(t *testing.T) {
	runOverriderCases(t, []overriderCase{{
		name:       "command add appends",
		template:   web,
		overriders: "commandOverrider:\n- {containerName: web, operator: add, value: [-c, /etc/nginx.conf]}",
		want:       replace(web, "command: [nginx]", "command: [nginx, -c, /etc/nginx.conf]"),
	}, {
		name:       "command add to a container without one",
		template:   web,
		overriders: "commandOverrider:\n- {containerName: sidecar, operator: add, value: [envoy]}",
		want:       replace(web, "image: envoy", "image: envoy\n        command: [envoy]"),
	}, {
		name:       "command of an init container",
		template:   web,
		overriders: "commandOverrider:\n- {containerName: setup, operator: remove, value: [-c, \"true\"]}",
		want:       replace(web, `command: [sh, -c, "true"]`, "command: [sh]"),
	}, {
		name:       "command remove of every entry drops the field",
		template:   web,
		overriders: "commandOverrider:\n- {containerName: web, operator: remove, value: [nginx]}",
		want:       replace(web, "        command: [nginx]\n", ""),
	}, {
		name:       "args add appends",
		template:   web,
		overriders: "argsOverrider:\n- {containerName: web, operator: add, value: [--v=2]}",
		want:       replace(web, `args: [-g, "daemon off;"]`, `args: [-g, "daemon off;", --v=2]`),
	}, {
		name:       "args remove drops every listed value, missing ones are ignored",
		template:   web,
		overriders: "argsOverrider:\n- {containerName: web, operator: remove, value: [-g, --absent]}",
		want:       replace(web, `args: [-g, "daemon off;"]`, `args: ["daemon off;"]`),
	}, {
		name:       "args of a container the workload lacks",
		template:   web,
		overriders: "argsOverrider:\n- {containerName: absent, operator: add, value: [x]}",
		want:       web,
	}, {
		name:       "args replace is not an operator of argsOverrider",
		template:   web,
		overriders: "argsOverrider:\n- {containerName: web, operator: replace, value: [x]}",
		wantErr:    "argsOverrider[0]: operator \"replace\" is not add or remove",
	}, {
		name:       "args that are not a list",
		template:   replace(web, `args: [-g, "daemon off;"]`, "args: oops"),
		overriders: "argsOverrider:\n- {containerName: web, operator: add, value: [x]}",
		wantErr:    "/spec/template/spec/containers/0/args is a string, not a list",
	}})
}

func TestLabelsAnnotationsOverrider(t *testing.T) {
	runOverriderCases(t, []overriderCase{{
		name:       "seed 000: labels addIfAbsent adds a missing key",
		template:   web,
		overriders: "labelsOverrider:\n- {operator: addIfAbsent, value: {cluster: member-cluster-2}}",
		want:       replace(web, "labels: {app: web, tier: front}", "labels: {app: web, tier: front, cluster: member-cluster-2}"),
	}, {
		name:       "labels addIfAbsent keeps an existing key",
		template:   web,
		overriders: "labelsOverrider:\n- {operator: addIfAbsent, value: {app: other}}",
		want:       web,
	}, {
		name:       "labels add sets new and existing keys",
		template:   web,
		overriders: "labelsOverrider:\n- {operator: add, value: {app: other, zone: a}}",
		want:       replace(web, "labels: {app: web, tier: front}", "labels: {app: other, tier: front, zone: a}"),
	}, {
		name:       "labels replace only existing keys",
		template:   web,
		overriders: "labelsOverrider:\n- {operator: replace, value: {tier: back, zone: a}}",
		want:       replace(web, "labels: {app: web, tier: front}", "labels: {app: web, tier: back}"),
	}, {
		name:       "labels remove",
		template:   web,
		overriders: "labelsOverrider:\n- {operator: remove, value: {tier: \"\", absent: \"\"}}",
		want:       replace(web, "labels: {app: web, tier: front}", "labels: {app: web}"),
	}, {
		name:       "labels remove of the last key drops the map",
		template:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {a: b}}",
		overriders: "labelsOverrider:\n- {operator: remove, value: {a: \"\"}}",
		want:       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}",
	}, {
		name:       "seed 000: annotations addIfAbsent on an object without annotations",
		template:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}",
		overriders: "annotationsOverrider:\n- {operator: addIfAbsent, value: {monitoring.example.com/enabled: \"true\"}}",
		want:       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, annotations: {monitoring.example.com/enabled: \"true\"}}",
	}, {
		name:       "annotations add",
		template:   web,
		overriders: "annotationsOverrider:\n- {operator: add, value: {owner: team-b}}",
		want:       replace(web, "annotations: {owner: team-a}", "annotations: {owner: team-b}"),
	}, {
		name:       "annotations replace",
		template:   web,
		overriders: "annotationsOverrider:\n- {operator: replace, value: {owner: team-c, absent: x}}",
		want:       replace(web, "annotations: {owner: team-a}", "annotations: {owner: team-c}"),
	}, {
		name:       "annotations remove",
		template:   web,
		overriders: "annotationsOverrider:\n- {operator: remove, value: {owner: \"\"}}",
		want:       replace(web, "  annotations: {owner: team-a}\n", ""),
	}, {
		name:       "annotations of an object without metadata",
		template:   "apiVersion: v1\nkind: ConfigMap",
		overriders: "annotationsOverrider:\n- {operator: add, value: {a: b}}",
		want:       "apiVersion: v1\nkind: ConfigMap\nmetadata: {annotations: {a: b}}",
	}, {
		name:       "unknown operator",
		template:   web,
		overriders: "labelsOverrider:\n- {operator: merge, value: {a: b}}",
		wantErr:    `labelsOverrider[0]: operator "merge"`,
	}, {
		name:       "labels that are not a map",
		template:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: [a]}",
		overriders: "labelsOverrider:\n- {operator: add, value: {a: b}}",
		wantErr:    "metadata.labels is a []interface {}, not an object",
	}})
}

func TestReplicasOverrider(t *testing.T) {
	runOverriderCases(t, []overriderCase{{
		name:       "seed 000: replicas 3",
		template:   web,
		overriders: "replicasOverrider:\n- {value: 3}",
		want:       replace(web, "replicas: 1", "replicas: 3"),
	}, {
		name:       "replicas 0",
		template:   web,
		overriders: "replicasOverrider:\n- {value: 0}",
		want:       replace(web, "replicas: 1", "replicas: 0"),
	}, {
		name:       "custom resource without spec gets one",
		template:   "apiVersion: example.io/v1\nkind: Game\nmetadata: {name: g}",
		overriders: "replicasOverrider:\n- {value: 5}",
		want:       "apiVersion: example.io/v1\nkind: Game\nmetadata: {name: g}\nspec: {replicas: 5}",
	}, {
		name:       "DaemonSet has no replicas",
		template:   "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec: {}",
		overriders: "replicasOverrider:\n- {value: 5}",
		wantErr:    "a DaemonSet has no replica count",
	}, {
		name:       "negative",
		template:   web,
		overriders: "replicasOverrider:\n- {value: -1}",
		wantErr:    "negative",
	}, {
		name:       "two entries",
		template:   web,
		overriders: "replicasOverrider:\n- {value: 1}\n- {value: 2}",
		wantErr:    "at most one",
	}})
}

func TestResourcesOverrider(t *testing.T) {
	runOverriderCases(t, []overriderCase{{
		name:     "seed 000: resources of nginx",
		template: web,
		overriders: `
resourcesOverrider:
- containerName: web
  value:
    limits: {cpu: "2", memory: 2Gi}
    requests: {cpu: 500m, memory: 512Mi}
`,
		want: replace(web, "requests: {cpu: 100m, memory: 64Mi}\n          limits: {memory: 128Mi}",
			"requests: {cpu: 500m, memory: 512Mi}\n          limits: {cpu: \"2\", memory: 2Gi}"),
	}, {
		name:       "resources not named are kept",
		template:   web,
		overriders: "resourcesOverrider:\n- {containerName: web, value: {requests: {cpu: \"1\"}}}",
		want:       replace(web, "requests: {cpu: 100m, memory: 64Mi}", `requests: {cpu: "1", memory: 64Mi}`),
	}, {
		name:       "container without resources",
		template:   web,
		overriders: "resourcesOverrider:\n- {containerName: sidecar, value: {limits: {memory: 1Gi}}}",
		want:       replace(web, "image: envoy", "image: envoy\n        resources: {limits: {memory: 1Gi}}"),
	}, {
		name:       "init container",
		template:   web,
		overriders: "resourcesOverrider:\n- {containerName: setup, value: {limits: {cpu: 10m}}}",
		want:       replace(web, "image: busybox", "image: busybox\n        resources: {limits: {cpu: 10m}}"),
	}, {
		name:       "container the workload lacks",
		template:   web,
		overriders: "resourcesOverrider:\n- {containerName: absent, value: {limits: {cpu: 10m}}}",
		want:       web,
	}})
}

const appConfig = `
apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data:
  config.json: '{"db":{"host":"localhost","port":5432},"features":["a","b"]}'
  config.yaml: |
    db:
      host: localhost
      port: 5432
    features:
    - a
    - b
  plain: hello
`

func TestFieldOverrider(t *testing.T) {
	runOverriderCases(t, []overriderCase{{
		name:     "json replace, add and remove",
		template: appConfig,
		overriders: `
fieldOverrider:
- fieldPath: /data/config.json
  json:
  - {subPath: /db/host, operator: replace, value: db.member1}
  - {subPath: /db/tls, operator: add, value: true}
  - {subPath: /features/0, operator: remove}
`,
		want: replace(appConfig, `'{"db":{"host":"localhost","port":5432},"features":["a","b"]}'`,
			`'{"db":{"host":"db.member1","port":5432,"tls":true},"features":["b"]}'`),
	}, {
		name:     "yaml replace, add and remove",
		template: appConfig,
		overriders: `
fieldOverrider:
- fieldPath: /data/config.yaml
  yaml:
  - {subPath: /db/port, operator: replace, value: 6432}
  - {subPath: /features/-, operator: add, value: c}
  - {subPath: /db/host, operator: remove}
`,
		want: replace(appConfig, "    db:\n      host: localhost\n      port: 5432\n    features:\n    - a\n    - b\n",
			"    db:\n      port: 6432\n    features:\n    - a\n    - b\n    - c\n"),
	}, {
		name:       "replace of a missing subPath",
		template:   appConfig,
		overriders: "fieldOverrider:\n- {fieldPath: /data/config.json, json: [{subPath: /db/user, operator: replace, value: x}]}",
		wantErr:    `fieldOverrider[0]: fieldPath "/data/config.json": operation 0: path "/db/user": "user" does not exist`,
	}, {
		name:       "field that is not JSON",
		template:   appConfig,
		overriders: "fieldOverrider:\n- {fieldPath: /data/plain, json: [{subPath: /a, operator: add, value: x}]}",
		wantErr:    "is not JSON",
	}, {
		name:       "field that does not exist",
		template:   appConfig,
		overriders: "fieldOverrider:\n- {fieldPath: /data/absent, yaml: [{subPath: /a, operator: add, value: x}]}",
		wantErr:    `fieldPath "/data/absent" does not exist`,
	}, {
		name:       "field that is not a string",
		template:   appConfig,
		overriders: "fieldOverrider:\n- {fieldPath: /data, yaml: [{subPath: /a, operator: add, value: x}]}",
		wantErr:    "not a string",
	}, {
		name:       "both json and yaml",
		template:   appConfig,
		overriders: "fieldOverrider:\n- {fieldPath: /data/plain, json: [{subPath: /a, operator: remove}], yaml: [{subPath: /a, operator: remove}]}",
		wantErr:    "only one of json and yaml",
	}, {
		name:       "neither json nor yaml",
		template:   appConfig,
		overriders: "fieldOverrider:\n- {fieldPath: /data/plain}",
		wantErr:    "one of json and yaml must be set",
	}})
}

func TestPlaintextOverrider(t *testing.T) {
	runOverriderCases(t, []overriderCase{{
		name:       "seed 002: replace an existing field",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/replicas, operator: replace, value: 4}",
		want:       replace(web, "replicas: 1", "replicas: 4"),
	}, {
		name:       "add a new field",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/serviceName, operator: add, value: web}",
		want:       replace(web, "replicas: 1", "replicas: 1\n  serviceName: web"),
	}, {
		name:       "add overwrites an existing field",
		template:   web,
		overriders: "plaintext:\n- {path: /metadata/labels, operator: add, value: {x: y}}",
		want:       replace(web, "labels: {app: web, tier: front}", "labels: {x: y}"),
	}, {
		name:       "add inserts into a list",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/template/spec/containers/1/args, operator: add, value: []}\n- {path: /spec/template/spec/containers/1/args/0, operator: add, value: b}\n- {path: /spec/template/spec/containers/1/args/0, operator: add, value: a}",
		want:       replace(web, "image: envoy", "image: envoy\n        args: [a, b]"),
	}, {
		name:       "add appends with -",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/template/spec/containers/0/command/-, operator: add, value: -t}",
		want:       replace(web, "command: [nginx]", "command: [nginx, -t]"),
	}, {
		name:       "remove a field",
		template:   web,
		overriders: "plaintext:\n- {path: /metadata/annotations, operator: remove}",
		want:       replace(web, "  annotations: {owner: team-a}\n", ""),
	}, {
		name:       "remove a list entry",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/template/spec/containers/1, operator: remove}",
		want:       replace(web, "      - name: sidecar\n        image: envoy\n", ""),
	}, {
		name:       "escaped path",
		template:   web,
		overriders: "plaintext:\n- {path: /metadata/annotations/example.io~1a~0b, operator: add, value: c}",
		want:       replace(web, "annotations: {owner: team-a}", `annotations: {owner: team-a, "example.io/a~b": c}`),
	}, {
		name:       "replace a missing field",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/missing, operator: replace, value: 1}",
		wantErr:    `plaintext[0]: path "/spec/missing": "missing" does not exist, so it cannot be replaced`,
	}, {
		name:       "remove a missing field",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/missing, operator: remove}",
		wantErr:    "cannot be removed",
	}, {
		name:       "add below a missing parent",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/a/b, operator: add, value: 1}",
		wantErr:    `"a" does not exist`,
	}, {
		name:       "index out of range",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/template/spec/containers/5/image, operator: replace, value: x}",
		wantErr:    "out of range",
	}, {
		name:       "path into a string",
		template:   web,
		overriders: "plaintext:\n- {path: /metadata/name/x, operator: add, value: 1}",
		wantErr:    "is a string, not an object or array",
	}, {
		name:       "path that is not a pointer",
		template:   web,
		overriders: "plaintext:\n- {path: spec/replicas, operator: replace, value: 1}",
		wantErr:    "not a JSON pointer",
	}, {
		name:       "add without a value",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/replicas, operator: add}",
		wantErr:    "add needs a value",
	}, {
		name:       "remove with a value",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/replicas, operator: remove, value: 1}",
		wantErr:    "remove takes no value",
	}, {
		name:       "unknown operator",
		template:   web,
		overriders: "plaintext:\n- {path: /spec/replicas, operator: move, value: 1}",
		wantErr:    `operator "move"`,
	}, {
		name:       "replacing the whole object with a non-object",
		template:   web,
		overriders: "plaintext:\n- {path: \"\", operator: replace, value: 1}",
		wantErr:    "the object would become a int64",
	}})
}

// replace is strings.Replace of exactly one occurrence, failing loudly when old is absent
// so a test cannot pass by comparing a template with itself.
func replace(s, old, new string) string {
	if strings.Count(s, old) != 1 {
		panic("test fixture: " + old + " is not in the template exactly once")
	}
	return strings.Replace(s, old, new, 1)
}
