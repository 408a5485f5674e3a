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

package convert

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestConvert(t *testing.T) {
	streams, in, out, errOut := genericiooptions.NewTestIOStreams()
	in.WriteString(`apiVersion: remedy.karmada.io/v1alpha1
kind: Remedy
metadata: {name: dns}
spec: {actions: [TrafficControl]}
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata: {name: examples}
webhooks:
- name: workloads.example.com
  clientConfig: {url: "https://karmada-interpreter-webhook-example.karmada-system.svc:443/interpreter-workload"}
  rules: [{operations: [InterpretReplica], apiGroups: [workload.example.io], apiVersions: [v1alpha1], kinds: [Workload]}]
  interpreterContextVersions: [v1alpha1]
---
apiVersion: operator.karmada.io/v1alpha1
kind: Karmada
metadata: {name: karmada-demo, namespace: karmada-system}
---
apiVersion: apps.karmada.io/v1alpha1
kind: WorkloadRebalancer
metadata: {name: demo}
spec:
  workloads: [{apiVersion: apps/v1, kind: Deployment, namespace: default, name: demo-deploy-1}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata:
  name: all
  labels: {namespace.karmada.io/skip-auto-propagation: "true"}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
  unknownField: 1
`)
	cmd := NewCmdConvert(streams)
	cmd.SetArgs([]string{"-f", "../../../test/e2e/testdata/karmada/nginx.yaml", "-f", "-"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	if err == nil || !strings.Contains(err.Error(), "Karmada karmada-system/karmada-demo: fed serves no operator.karmada.io Karmada yet: left out") {
		t.Errorf("error %v, want Karmada's operator object left out", err)
	}
	got := out.String()
	for _, want := range []string{
		"kind: List",
		"- apiVersion: federation.fedhq.io/v1alpha1\n  kind: PropagationPolicy",
		"key: cluster.fedhq.io/not-ready",
		"resourcetemplate.fedhq.io/deletion-protected: Always",
		"- apiVersion: federation.fedhq.io/v1alpha1\n  kind: FederatedHPA",
		"kind: ClusterPropagationPolicy",
		"- apiVersion: federation.fedhq.io/v1alpha1\n  kind: WorkloadRebalancer",
		"- apiVersion: cluster.fedhq.io/v1alpha1\n  kind: Remedy",
		"- apiVersion: federation.fedhq.io/v1alpha1\n  kind: ResourceInterpreterWebhookConfiguration",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output without %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "karmada.io/name") || strings.Contains(got, "kind: Karmada") {
		t.Errorf("output holds Karmada's claim label or its operator object:\n%s", got)
	}
	for _, want := range []string{
		"Warning: Deployment nginx: label propagationpolicy.karmada.io/name is Karmada's own: left out",
		"Warning: ClusterPropagationPolicy all: namespace.karmada.io/skip-auto-propagation has no counterpart in fed: left as is",
		`Warning: ClusterPropagationPolicy all: fed's API refuses it as it is (error unmarshaling JSON: while decoding JSON: json: unknown field "unknownField")`,
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("standard error without %q:\n%s", want, errOut.String())
		}
	}
	// One object prints as itself, in JSON with -o json.
	streams, in, out, _ = genericiooptions.NewTestIOStreams()
	in.WriteString("apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1}\nspec: {syncMode: Push}\n")
	cmd = NewCmdConvert(streams)
	cmd.SetArgs([]string{"-f", "-", "-o", "json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"apiVersion": "cluster.fedhq.io/v1alpha1"`)) || bytes.Contains(out.Bytes(), []byte(`"List"`)) {
		t.Errorf("a Cluster as JSON:\n%s", out.String())
	}
}

// migrate keeps what a user wrote and drops what Karmada's API server wrote.
func TestClean(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "nginx", "namespace": "shop", "uid": "u", "resourceVersion": "7", "generation": int64(2),
			"creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": []any{map[string]any{"manager": "kubectl"}},
			"labels":      map[string]any{"app": "nginx"},
			"annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
		"spec": map[string]any{"replicas": int64(2)}, "status": map[string]any{"replicas": int64(2)}}}
	clean(u)
	want := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "nginx", "namespace": "shop", "labels": map[string]any{"app": "nginx"}},
		"spec":     map[string]any{"replicas": int64(2)}}
	if !reflect.DeepEqual(u.Object, want) {
		t.Errorf("cleaned:\n%v\nwant\n%v", u.Object, want)
	}
	if got := kindOf(u); got != "deployment.apps" {
		t.Errorf("kindOf: %q", got)
	}
}

func TestMigrateUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{args: nil, want: "--from-karmada KUBECONFIG is required"},
		{args: []string{"--from-karmada", "x", "--dry-run=maybe"}, want: `--dry-run must be client, server or none, not "maybe"`},
	} {
		streams, _, _, _ := genericiooptions.NewTestIOStreams()
		cmd := NewCmdMigrate(genericclioptions.NewConfigFlags(false), streams)
		cmd.SetArgs(c.args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
