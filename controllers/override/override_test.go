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

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
)

// object decodes a YAML manifest as the API machinery would: integers as int64.
func object(t testing.TB, manifest string) *unstructured.Unstructured {
	t.Helper()
	raw, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	var m map[string]interface{}
	if err := utiljson.Unmarshal(raw, &m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	return &unstructured.Unstructured{Object: m}
}

// spec decodes the spec of an override policy written in YAML.
func spec(t testing.TB, text string) *federationv1alpha1.OverrideSpec {
	t.Helper()
	var s federationv1alpha1.OverrideSpec
	if err := yaml.UnmarshalStrict([]byte(text), &s); err != nil {
		t.Fatalf("spec: %v", err)
	}
	return &s
}

func cluster(name string, labels map[string]string) *clusterv1alpha1.Cluster {
	return &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// indent puts every line of text n spaces to the right, to nest a YAML fragment.
func indent(text string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.Trim(text, "\n"), "\n")
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}

// overriderCase is a template, the overriders of a single rule for every cluster, and the
// object they should make or a fragment of the error they should raise.
type overriderCase struct {
	name       string
	template   string
	overriders string
	want       string
	wantErr    string
}

func runOverriderCases(t *testing.T, cases []overriderCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			template := object(t, tc.template)
			policy := Policy{Name: "p", Spec: spec(t, "overrideRules:\n- overriders:\n"+indent(tc.overriders, 4))}
			got, _, err := Apply(template, cluster("member1", nil), []Policy{policy})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if diff := cmp.Diff(object(t, tc.want).Object, got.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(object(t, tc.template).Object, template.Object); diff != "" {
				t.Errorf("template was changed (-before +after):\n%s", diff)
			}
		})
	}
}

const nginx = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  labels:
    app: nginx
spec:
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`

// seed000Policy is the first OverridePolicy of seed 000: a different registry, and more,
// for each of two clusters.
const seed000Policy = `
resourceSelectors:
- apiVersion: apps/v1
  kind: Deployment
  name: nginx
overrideRules:
- targetCluster:
    clusterNames:
    - member-cluster-1
  overriders:
    imageOverrider:
    - component: Registry
      operator: replace
      value: registry-1.example.com
    - component: Tag
      operator: replace
      value: v1.0.0-cluster1
    replicasOverrider:
    - value: 3
    argsOverrider:
    - containerName: nginx
      operator: add
      value:
      - "--config=/etc/nginx/cluster1.conf"
    resourcesOverrider:
    - containerName: nginx
      value:
        limits:
          cpu: "2"
          memory: "2Gi"
        requests:
          cpu: "500m"
          memory: "512Mi"
- targetCluster:
    clusterNames:
    - member-cluster-2
  overriders:
    imageOverrider:
    - component: Registry
      operator: replace
      value: registry-2.example.com
    labelsOverrider:
    - operator: addIfAbsent
      value:
        cluster: member-cluster-2
    annotationsOverrider:
    - operator: addIfAbsent
      value:
        monitoring.example.com/enabled: "true"
`

func TestApplySeeds(t *testing.T) {
	cases := []struct {
		name        string
		template    string
		policy      string
		cluster     *clusterv1alpha1.Cluster
		want        string
		wantApplied []string
	}{{
		name:     "seed 000: registry replaced per cluster, member-cluster-1",
		template: nginx,
		policy:   seed000Policy,
		cluster:  cluster("member-cluster-1", nil),
		want: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry-1.example.com/nginx:v1.0.0-cluster1
        args:
        - --config=/etc/nginx/cluster1.conf
        resources:
          limits:
            cpu: "2"
            memory: 2Gi
          requests:
            cpu: 500m
            memory: 512Mi
`,
		wantApplied: []string{"OverridePolicy/default/nginx-override"},
	}, {
		name:     "seed 000: registry replaced per cluster, member-cluster-2",
		template: nginx,
		policy:   seed000Policy,
		cluster:  cluster("member-cluster-2", nil),
		want: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  labels:
    app: nginx
    cluster: member-cluster-2
  annotations:
    monitoring.example.com/enabled: "true"
spec:
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry-2.example.com/nginx:1.25
`,
		wantApplied: []string{"OverridePolicy/default/nginx-override"},
	}, {
		name:        "seed 000: registry replaced per cluster, other cluster unchanged",
		template:    nginx,
		policy:      seed000Policy,
		cluster:     cluster("member-cluster-3", nil),
		want:        nginx,
		wantApplied: nil,
	}, {
		name:     "seed 000: plaintext env and affinity for production clusters",
		template: nginx,
		policy: `
resourceSelectors:
- apiVersion: apps/v1
  kind: Deployment
  name: nginx
overrideRules:
- targetCluster:
    labelSelector:
      matchLabels:
        environment: production
  overriders:
    plaintext:
    - path: "/spec/template/spec/containers/0/env"
      operator: add
      value:
      - name: ENVIRONMENT
        value: production
      - name: LOG_LEVEL
        value: warn
    - path: "/spec/template/spec/affinity"
      operator: add
      value:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchLabels:
                  app: nginx
              topologyKey: kubernetes.io/hostname
`,
		cluster: cluster("prod-1", map[string]string{"environment": "production"}),
		want: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  namespace: default
  labels:
    app: nginx
spec:
  replicas: 2
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchLabels:
                  app: nginx
              topologyKey: kubernetes.io/hostname
      containers:
      - name: nginx
        image: nginx:1.25
        env:
        - name: ENVIRONMENT
          value: production
        - name: LOG_LEVEL
          value: warn
`,
		wantApplied: []string{"OverridePolicy/default/nginx-override"},
	}, {
		name: "seed 002: guestbook size and annotation on member1",
		template: `
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata:
  name: guestbook-sample
  namespace: default
spec:
  size: 2
  configMapName: test
  alias: Name
`,
		policy: `
resourceSelectors:
- apiVersion: webapp.my.domain/v1
  kind: Guestbook
overrideRules:
- targetCluster:
    clusterNames:
    - member1
  overriders:
    plaintext:
    - path: /spec/size
      operator: replace
      value: 4
    - path: /metadata/annotations
      operator: add
      value: { "OverridePolicy": "test" }
`,
		cluster: cluster("member1", nil),
		want: `
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata:
  name: guestbook-sample
  namespace: default
  annotations:
    OverridePolicy: test
spec:
  size: 4
  configMapName: test
  alias: Name
`,
		wantApplied: []string{"OverridePolicy/default/nginx-override"},
	}, {
		name: "seed 002: registry test-repo added to myapp:1.0.0",
		template: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: myapp
  namespace: default
spec:
  template:
    spec:
      containers:
      - image: myapp:1.0.0
        name: myapp
`,
		policy: `
overrideRules:
- overriders:
    imageOverrider:
    - component: Registry
      operator: add
      value: test-repo
`,
		cluster: cluster("member2", nil),
		want: `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: myapp
  namespace: default
spec:
  template:
    spec:
      containers:
      - image: test-repo/myapp:1.0.0
        name: myapp
`,
		wantApplied: []string{"OverridePolicy/default/nginx-override"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policies := []Policy{{Namespace: "default", Name: "nginx-override", Spec: spec(t, tc.policy)}}
			got, applied, err := Apply(object(t, tc.template), tc.cluster, policies)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if diff := cmp.Diff(object(t, tc.want).Object, got.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantApplied, applied); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
		})
	}
}

// labelPolicy is a policy whose single rule, for every cluster, sets the label "order" to
// value with add.
func labelPolicy(namespace, name, value string) Policy {
	return Policy{Namespace: namespace, Name: name, Spec: &federationv1alpha1.OverrideSpec{
		OverrideRules: []federationv1alpha1.RuleWithCluster{{Overriders: federationv1alpha1.Overriders{
			LabelsOverrider: []federationv1alpha1.LabelAnnotationOverrider{{
				Operator: federationv1alpha1.OverriderOpAdd,
				Value:    map[string]string{"order": value},
			}},
		}}},
	}}
}

func TestApplyOrder(t *testing.T) {
	// Each policy overwrites the label "order" and appends its name to the args, so the
	// label shows the last one applied and the args show the order.
	appendArg := func(namespace, name string) Policy {
		return Policy{Namespace: namespace, Name: name, Spec: spec(t, `
overrideRules:
- overriders:
    argsOverrider:
    - containerName: nginx
      operator: add
      value: [`+name+`]
`)}
	}
	cases := []struct {
		name        string
		policies    []Policy
		wantArgs    []interface{}
		wantApplied []string
	}{{
		name:        "cluster-wide before namespaced, whatever the input order",
		policies:    []Policy{appendArg("default", "a"), appendArg("", "z")},
		wantArgs:    []interface{}{"z", "a"},
		wantApplied: []string{"ClusterOverridePolicy/z", "OverridePolicy/default/a"},
	}, {
		name:        "each group by name",
		policies:    []Policy{appendArg("default", "d"), appendArg("", "c"), appendArg("default", "b"), appendArg("", "a")},
		wantArgs:    []interface{}{"a", "c", "b", "d"},
		wantApplied: []string{"ClusterOverridePolicy/a", "ClusterOverridePolicy/c", "OverridePolicy/default/b", "OverridePolicy/default/d"},
	}, {
		name:        "policies of other namespaces do not apply",
		policies:    []Policy{appendArg("other", "a"), appendArg("default", "b")},
		wantArgs:    []interface{}{"b"},
		wantApplied: []string{"OverridePolicy/default/b"},
	}, {
		name: "rules in order within a policy",
		policies: []Policy{{Name: "p", Spec: spec(t, `
overrideRules:
- overriders:
    argsOverrider:
    - {containerName: nginx, operator: add, value: [first]}
- overriders:
    argsOverrider:
    - {containerName: nginx, operator: add, value: [second]}
    - {containerName: nginx, operator: remove, value: [first]}
- overriders:
    argsOverrider:
    - {containerName: nginx, operator: add, value: [third]}
`)}},
		wantArgs:    []interface{}{"second", "third"},
		wantApplied: []string{"ClusterOverridePolicy/p"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, applied, err := Apply(object(t, nginx), cluster("member1", nil), tc.policies)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			args, _, _ := unstructured.NestedSlice(got.Object, "spec", "template", "spec", "containers")
			if diff := cmp.Diff(tc.wantArgs, args[0].(map[string]interface{})["args"]); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantApplied, applied); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyOverriderKindOrder(t *testing.T) {
	// Within a rule the plaintext overrider runs after the labels overrider whatever the
	// order in the YAML, so it sees and replaces the label.
	runOverriderCases(t, []overriderCase{{
		name: "plaintext runs after labelsOverrider",
		template: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`,
		overriders: `
plaintext:
- {path: /metadata/labels/a, operator: replace, value: from-plaintext}
labelsOverrider:
- {operator: add, value: {a: from-labels}}
`,
		want: `
apiVersion: v1
kind: ConfigMap
metadata: {name: c, labels: {a: from-plaintext}}
`,
	}})
}

func TestApplyLaterPolicyWins(t *testing.T) {
	policies := []Policy{
		labelPolicy("default", "b", "namespaced-b"),
		labelPolicy("", "a", "cluster-a"),
		labelPolicy("default", "a", "namespaced-a"),
	}
	got, _, err := Apply(object(t, nginx), cluster("member1", nil), policies)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.GetLabels()["order"]; v != "namespaced-b" {
		t.Errorf("label order = %q, want namespaced-b (the last namespaced policy by name)", v)
	}
}

func TestApplyTargetCluster(t *testing.T) {
	prod := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "prod-1", Labels: map[string]string{"env": "prod"}},
		Spec:       clusterv1alpha1.ClusterSpec{Provider: "aws", Region: "us-west-2"},
	}
	cases := []struct {
		name   string
		target string
		want   bool
	}{
		{name: "no targetCluster: every cluster", target: "", want: true},
		{name: "empty targetCluster: every cluster", target: "targetCluster: {}", want: true},
		{name: "clusterNames includes it", target: "targetCluster: {clusterNames: [dev-1, prod-1]}", want: true},
		{name: "clusterNames leaves it out", target: "targetCluster: {clusterNames: [dev-1]}", want: false},
		{name: "labelSelector matches", target: "targetCluster: {labelSelector: {matchLabels: {env: prod}}}", want: true},
		{name: "labelSelector does not match", target: "targetCluster: {labelSelector: {matchLabels: {env: dev}}}", want: false},
		{name: "fieldSelector region In", target: "targetCluster: {fieldSelector: {matchExpressions: [{key: region, operator: In, values: [us-west-2]}]}}", want: true},
		{name: "fieldSelector provider NotIn", target: "targetCluster: {fieldSelector: {matchExpressions: [{key: provider, operator: NotIn, values: [aws]}]}}", want: false},
		{name: "exclude wins over clusterNames", target: "targetCluster: {clusterNames: [prod-1], exclude: [prod-1]}", want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rule := "overrideRules:\n- overriders:\n    replicasOverrider: [{value: 7}]\n"
			if tc.target != "" {
				rule = "overrideRules:\n- " + tc.target + "\n  overriders:\n    replicasOverrider: [{value: 7}]\n"
			}
			got, applied, err := Apply(object(t, nginx), prod, []Policy{{Name: "p", Spec: spec(t, rule)}})
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			replicas, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas")
			if (replicas == 7) != tc.want || (len(applied) == 1) != tc.want {
				t.Errorf("replicas = %d, applied = %v; want the rule applied: %v", replicas, applied, tc.want)
			}
		})
	}

	t.Run("invalid fieldSelector is an error naming the rule", func(t *testing.T) {
		rule := "overrideRules:\n- overriders: {}\n- targetCluster: {fieldSelector: {matchExpressions: [{key: color, operator: In, values: [red]}]}}\n  overriders: {}\n"
		_, _, err := Apply(object(t, nginx), prod, []Policy{{Namespace: "default", Name: "p", Spec: spec(t, rule)}})
		if err == nil || !strings.Contains(err.Error(), "OverridePolicy/default/p: overrideRules[1].targetCluster") {
			t.Errorf("error = %v, want one naming OverridePolicy/default/p: overrideRules[1].targetCluster", err)
		}
	})
}

func TestPolicySelects(t *testing.T) {
	cases := []struct {
		name   string
		policy string
		ns     string
		want   bool
	}{
		{name: "namespaced, no selectors: templates of its namespace", ns: "default", policy: "{}", want: true},
		{name: "namespaced, no selectors: not other namespaces", ns: "other", policy: "{}", want: false},
		{name: "cluster-wide, no selectors: every template", ns: "", policy: "{}", want: true},
		{name: "by name", ns: "", policy: "resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]", want: true},
		{name: "other name", ns: "", policy: "resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]", want: false},
		{name: "other kind", ns: "", policy: "resourceSelectors: [{apiVersion: apps/v1, kind: StatefulSet}]", want: false},
		{name: "by label", ns: "default", policy: "resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {app: nginx}}}]", want: true},
		{name: "second selector matches", ns: "", policy: "resourceSelectors: [{apiVersion: v1, kind: Service}, {apiVersion: apps/v1, kind: Deployment}]", want: true},
		{name: "cluster-wide selector of another namespace", ns: "", policy: "resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: other}]", want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Policy{Namespace: tc.ns, Name: "p", Spec: spec(t, tc.policy)}
			if got := p.Selects(object(t, nginx)); got != tc.want {
				t.Errorf("Selects = %v, want %v", got, tc.want)
			}
		})
	}
	if (Policy{Name: "nil-spec"}).Selects(object(t, nginx)) {
		t.Error("a policy without a spec selects nothing")
	}
}

func TestApplyErrors(t *testing.T) {
	p := Policy{Namespace: "default", Name: "bad", Spec: spec(t, `
overrideRules:
- overriders: {}
- overriders:
    imageOverrider:
    - {component: Tag, operator: replace, value: "1.0"}
    - {component: Registry, operator: replace, value: "not a host!"}
`)}
	_, _, err := Apply(object(t, nginx), cluster("m", nil), []Policy{p})
	want := "OverridePolicy/default/bad: overrideRules[1].overriders.imageOverrider[1]: /spec/template/spec/containers/0/image:"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %v, want it to start with %q", err, want)
	}
	if _, _, err := Apply(nil, cluster("m", nil), nil); err == nil {
		t.Error("a nil template is an error")
	}
	if _, _, err := Apply(object(t, nginx), nil, nil); err == nil {
		t.Error("a nil cluster is an error")
	}
	bad := &unstructured.Unstructured{Object: map[string]interface{}{"spec": map[string]interface{}{"replicas": 3}}}
	if _, _, err := Apply(bad, cluster("m", nil), nil); err == nil {
		t.Error("a template holding an int (not int64) is an error, not a panic")
	}
}
