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
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/interpreter/lua"
)

// karmadaStyle is a customization of the guestbook CRD written as Karmada's scripts are:
// the helpers loaded with require("kube"), {} for "nothing" whatever the field expects.
const karmadaStyle = `
apiVersion: federation.fedhq.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: karmada-style}
spec:
  target: {apiVersion: webapp.my.domain/v1, kind: Guestbook}
  customizations:
    replicaResource:
      luaScript: |
        local kube = require("kube")
        function GetReplicas(obj)
          if obj.spec.template == nil then
            return obj.spec.size, {}
          end
          local requires = kube.accuratePodRequirements(obj.spec.template)
          requires.nodeClaim = requires.nodeClaim or {}
          requires.nodeClaim.tolerations = {}
          return obj.spec.size, requires
        end
    dependencyInterpretation:
      luaScript: |
        local kube = require("kube")
        function GetDependencies(desiredObj)
          if desiredObj.spec.template == nil then
            return {}
          end
          -- Twice, as a script asking for each of a workload's pod templates would.
          local deps = kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)
          for _, d in ipairs(kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)) do
            table.insert(deps, d)
          end
          return deps
        end
    retention:
      luaScript: |
        function Retain(desiredObj, observedObj)
          desiredObj.spec.volumes = {}
          desiredObj.spec.selector = {}
          desiredObj.spec.added = {}
          return desiredObj
        end
    statusAggregation:
      luaScript: |
        local kube = require("kube")
        function AggregateStatus(desiredObj, statusItems)
          local cpu = nil
          for _, item in ipairs(statusItems) do
            cpu = kube.resourceAdd(cpu, item.status.cpu)
          end
          desiredObj.status = {cpu = cpu, cores = kube.getResourceQuantity(cpu), conditions = {}}
          return desiredObj
        end
`

// blockGuestbook is the guestbook with a spec to add fields to.
const blockGuestbook = `
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata: {name: gb, namespace: default}
spec:
  size: 5
`

func TestKarmadaStyleScripts(t *testing.T) {
	c := &federationv1alpha1.ResourceInterpreterCustomization{}
	if err := fromValue(fromYAML(t, karmadaStyle).Object, c); err != nil {
		t.Fatal(err)
	}
	i := New(fixed{c}, lua.DefaultLimits)
	gb := fromYAML(t, guestbook)
	// {} for "no requirements": none.
	if n, req, err := i.Replicas(gb); err != nil || n != 5 || req != nil {
		t.Errorf("GetReplicas returning {}: %d %+v %v, want 5 and no requirements", n, req, err)
	}
	if deps, err := i.Dependencies(gb); err != nil || len(deps) != 0 {
		t.Errorf("GetDependencies returning {}: %v %v, want none", deps, err)
	}
	withTemplate := fromYAML(t, blockGuestbook+`  template:
    spec:
      serviceAccountName: robot
      containers: [{name: a, image: a, resources: {requests: {cpu: 250m}}}]
`)
	n, req, err := i.Replicas(withTemplate)
	if err != nil || n != 5 || req == nil || req.ResourceRequest.Cpu().String() != "250m" || req.NodeClaim == nil || req.NodeClaim.Tolerations == nil {
		t.Errorf("GetReplicas with kube.accuratePodRequirements and tolerations = {}: %d %+v %v", n, req, err)
	}
	deps, err := i.Dependencies(withTemplate)
	if err != nil || len(deps) != 1 || deps[0].Kind != "ServiceAccount" || deps[0].Name != "robot" || deps[0].Namespace != "default" {
		t.Errorf("kube.getPodDependencies twice: %v %v, want the ServiceAccount robot once", deps, err)
	}
	// In an object, {} is what the objects given hold there; dropped where they hold nothing.
	observed := fromYAML(t, blockGuestbook+"  volumes: [{name: x}]\n  selector: {app: gb}\n")
	kept, err := i.Retain(gb.DeepCopy(), observed)
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(kept.Object, "spec")
	if want := map[string]any{"size": int64(5), "volumes": []any{}, "selector": map[string]any{}}; !reflect.DeepEqual(spec, want) {
		t.Errorf("Retain with {}: spec %v, want %v", spec, want)
	}
	status, ok, err := i.AggregateStatus(gb, []federationv1alpha1.AggregatedStatusItem{
		item(t, "member1", true, "{cpu: 1500m}"), item(t, "member2", true, "{cpu: 500m}"),
	}, false)
	if err != nil || !ok || status["cpu"] != "2" || status["cores"] != int64(2) {
		t.Errorf("kube.resourceAdd and kube.getResourceQuantity: %v %v %v, want cpu 2 and cores 2", status, ok, err)
	}
}

func TestQuantityHelpers(t *testing.T) {
	for _, c := range []struct {
		name string
		args []any
		want any
		err  bool
	}{
		{"resourceAdd", []any{"250m", "1", nil, "750m"}, "2", false},
		{"resourceAdd", []any{"1Gi", "512Mi"}, "1536Mi", false},
		{"resourceAdd", []any{}, "0", false},
		{"resourceAdd", []any{"lots"}, nil, true},
		{"getResourceQuantity", []any{"1500m"}, 1.5, false},
		{"getResourceQuantity", []any{"1Ki"}, 1024.0, false},
		{"getResourceQuantity", []any{"-1"}, nil, true},
		{"getResourceQuantity", []any{"1", "2"}, nil, true},
	} {
		got, err := helpers[c.name](c.args...)
		if (err != nil) != c.err || !c.err && got != c.want {
			t.Errorf("kube.%s%v: %v %v, want %v (an error: %v)", c.name, c.args, got, err, c.want, c.err)
		}
	}
}
