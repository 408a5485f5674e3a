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
	"errors"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/interpreter/lua"
)

// customization reads an example of artifacts/examples.
func customization(t *testing.T, file string) *federationv1alpha1.ResourceInterpreterCustomization {
	t.Helper()
	data, err := os.ReadFile("../artifacts/examples/" + file)
	if err != nil {
		t.Fatal(err)
	}
	c := &federationv1alpha1.ResourceInterpreterCustomization{}
	if err := yaml.UnmarshalStrict(data, c); err != nil {
		t.Fatal(err)
	}
	return c
}

type fixed []*federationv1alpha1.ResourceInterpreterCustomization

func (f fixed) For(apiVersion, kind string) []*federationv1alpha1.ResourceInterpreterCustomization {
	var out []*federationv1alpha1.ResourceInterpreterCustomization
	for _, c := range f {
		if c.Spec.Target.APIVersion == apiVersion && c.Spec.Target.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

const guestbook = `
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata: {name: gb, namespace: default}
spec: {size: 5}
`

// The seeds' Deployment interpreter, as the pipeline runs it.
func TestSeedDeploymentInterpreter(t *testing.T) {
	i := New(fixed{customization(t, "deployment-interpreter.yaml")}, lua.DefaultLimits)
	d := fromYAML(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  template: {spec: {containers: [{name: a, image: a, resources: {requests: {cpu: 100m}}}]}}
`)
	n, req, err := i.Replicas(d)
	if err != nil || n != 1 || req != nil {
		t.Errorf("ReplicasCount of a Deployment without replicas: %d %v %v, want 1, no requirements", n, req, err)
	}
	_ = unstructured.SetNestedField(d.Object, int64(4), "spec", "replicas")
	if n, _, _ := i.Replicas(d); n != 4 {
		t.Errorf("ReplicasCount: %d, want 4", n)
	}
	status, ok, err := i.AggregateStatus(d, []federationv1alpha1.AggregatedStatusItem{
		item(t, "member1", true, "{replicas: 2, readyReplicas: 2, availableReplicas: 1}"),
		item(t, "member2", true, "{replicas: 2, readyReplicas: 1, availableReplicas: 1}"),
		item(t, "member3", true, ""),
	}, false)
	if err != nil || !ok || status["replicas"] != int64(4) || status["readyReplicas"] != int64(3) || status["availableReplicas"] != int64(2) {
		t.Errorf("AggregateStatus: %v %v %v", status, ok, err)
	}
	member := fromYAML(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec: {replicas: 7}
status: {replicas: 7, readyReplicas: 6}
`)
	if h, err := i.Health(member); err != nil || h != federationv1alpha1.ResourceUnhealthy {
		t.Errorf("InterpretHealth of 6/7 ready: %s %v", h, err)
	}
	_ = unstructured.SetNestedField(member.Object, int64(7), "status", "readyReplicas")
	if h, err := i.Health(member); err != nil || h != federationv1alpha1.ResourceHealthy {
		t.Errorf("InterpretHealth of 7/7 ready: %s %v", h, err)
	}
	kept, err := i.Retain(d, member)
	if r, _, _ := unstructured.NestedInt64(kept.Object, "spec", "replicas"); err != nil || r != 7 {
		t.Errorf("Retain keeps the member's replicas: %d %v", r, err)
	}
	// What it does not customise stays built in.
	if deps, err := i.Dependencies(d); err != nil || deps != nil {
		t.Errorf("Dependencies: %v %v", deps, err)
	}
	if revised, err := i.ReviseReplica(d.DeepCopy(), 2); err != nil {
		t.Error(err)
	} else if r, _, _ := unstructured.NestedInt64(revised.Object, "spec", "replicas"); r != 2 {
		t.Errorf("built-in ReviseReplica: %d", r)
	}
}

func TestGuestbookInterpreter(t *testing.T) {
	i := New(fixed{customization(t, "guestbook-interpreter.yaml")}, lua.DefaultLimits)
	gb := fromYAML(t, guestbook)
	n, req, err := i.Replicas(gb)
	if err != nil || n != 5 || req == nil || req.ResourceRequest.Cpu().String() != "100m" {
		t.Errorf("GetReplicas: %d %+v %v", n, req, err)
	}
	revised, err := i.ReviseReplica(gb.DeepCopy(), 2)
	if size, _, _ := unstructured.NestedInt64(revised.Object, "spec", "size"); err != nil || size != 2 {
		t.Errorf("ReviseReplica: %d %v", size, err)
	}
	member := fromYAML(t, guestbook+"status: {replicas: 5, guestbookStatus: fine, selector: app=gb}\n")
	raw, err := i.ReflectStatus(member)
	if err != nil || raw == nil || string(raw.Raw) != `{"guestbookStatus":"fine","replicas":5}` {
		t.Errorf("ReflectStatus: %v %v", raw, err)
	}
	if h, err := i.Health(member); err != nil || h != federationv1alpha1.ResourceHealthy {
		t.Errorf("InterpretHealth: %s %v", h, err)
	}
	healthy := item(t, "member1", true, "{replicas: 3}")
	healthy.Health = federationv1alpha1.ResourceHealthy
	status, ok, err := i.AggregateStatus(gb, []federationv1alpha1.AggregatedStatusItem{healthy, item(t, "member2", true, "{replicas: 1}")}, false)
	if err != nil || !ok || status["replicas"] != int64(4) || status["guestbookStatus"] != "1/2 clusters healthy" {
		t.Errorf("AggregateStatus: %v %v %v", status, ok, err)
	}
	// Without the customization fed knows nothing of a Guestbook.
	if n, req := Replicas(gb); n != 0 || req != nil {
		t.Errorf("built in: %d %v", n, req)
	}
	var none *Interpreter
	if h, err := none.Health(member); err != nil || h != federationv1alpha1.ResourceUnknown {
		t.Errorf("a nil interpreter is the built-in one: %s %v", h, err)
	}
}

func TestScriptFailures(t *testing.T) {
	c := customization(t, "guestbook-interpreter.yaml")
	c.Spec.Customizations.ReplicaResource.LuaScript = "function GetReplicas(obj) return obj.spec.nothing.here end"
	c.Spec.Customizations.HealthInterpretation.LuaScript = "function InterpretHealth(obj) while true do end end"
	c.Spec.Customizations.ReplicaRevision.LuaScript = "function ReviseReplica(obj, n) return 'not an object' end"
	i := New(fixed{c}, lua.Limits{Timeout: 200e6, HeapGrowth: 64 << 20, MaxString: 1 << 20})
	gb := fromYAML(t, guestbook)
	var se *ScriptError
	_, _, err := i.Replicas(gb)
	if !errors.As(err, &se) || se.Customization != "guestbook-interpreter" || se.Operation != OpReplicaResource ||
		!strings.Contains(err.Error(), "attempt to index a non-table object(nil) with key 'here'") {
		t.Errorf("a script error: %v", err)
	}
	if h, err := i.Health(gb); !errors.Is(err, lua.ErrTimeout) || h != federationv1alpha1.ResourceUnknown {
		t.Errorf("a script that loops forever: %s %v", h, err)
	}
	if _, err := i.ReviseReplica(gb, 1); err == nil || !strings.Contains(err.Error(), "ReviseReplica returned not an object, want an object") {
		t.Errorf("a wrong result: %v", err)
	}
	// The other kinds go on.
	d := fromYAML(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 3, template: {spec: {containers: [{name: a, image: a}]}}}\n")
	if n, _, err := i.Replicas(d); err != nil || n != 3 {
		t.Errorf("a Deployment beside a broken Guestbook script: %d %v", n, err)
	}
}

func TestRun(t *testing.T) {
	c := customization(t, "guestbook-interpreter.yaml")
	out, err := Run(c, OpReplicaResource, fromYAML(t, guestbook), nil, 0, nil)
	if err != nil || out.(map[string]any)["replicas"] != int32(5) {
		t.Errorf("Run replicaResource: %v %v", out, err)
	}
	if _, err := Run(c, "nonsense", fromYAML(t, guestbook), nil, 0, nil); err == nil || !strings.Contains(err.Error(), "unknown operation") {
		t.Errorf("Run of an unknown operation: %v", err)
	}
}

// TestSecretStatusNotReflected: a customization of Secrets cannot record their data in
// the Work and the binding.
func TestSecretStatusNotReflected(t *testing.T) {
	c := &federationv1alpha1.ResourceInterpreterCustomization{Spec: federationv1alpha1.ResourceInterpreterCustomizationSpec{
		Target: federationv1alpha1.CustomizationTarget{APIVersion: "v1", Kind: "Secret"},
		Customizations: federationv1alpha1.CustomizationRules{StatusReflection: &federationv1alpha1.LuaScript{
			LuaScript: "function ReflectStatus(obj) return {data = obj.data, note = obj.metadata.annotations} end"}},
	}}
	c.Name = "secret-status"
	secret := fromYAML(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s, annotations: {k: hunter2}}\ndata: {token: aHVudGVyMg==}\n")
	if raw, err := New(fixed{c}, lua.DefaultLimits).ReflectStatus(secret); raw != nil || err != nil {
		t.Errorf("a Secret's reflected status %s %v, want none", raw, err)
	}
	// The same script on another kind runs.
	c.Spec.Target.Kind = "ConfigMap"
	cm := fromYAML(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n")
	if raw, err := New(fixed{c}, lua.DefaultLimits).ReflectStatus(cm); err != nil || raw == nil || !strings.Contains(string(raw.Raw), `"k":"v"`) {
		t.Errorf("a ConfigMap's reflected status %v %v", raw, err)
	}
}
