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
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/interpreter/lua"
)

// describe prints components as "name=replicas(cpu,memory)".
func describe(components []federationv1alpha1.Component) string {
	var parts []string
	for _, c := range components {
		s := c.Name + "=" + string(rune('0'+c.Replicas))
		if rr := c.ReplicaRequirements; rr != nil {
			cpu, memory := rr.ResourceRequest.Cpu(), rr.ResourceRequest.Memory()
			s += "(" + cpu.String() + "," + memory.String() + ")"
			if rr.NodeClaim != nil {
				s += "[" + strings.Join(keys(rr.NodeClaim.NodeSelector), ",") + "]"
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func keys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func objectOf(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestTieredGuestbookComponents: the example customization's GetComponents reads both tiers
// of a TieredGuestbook with what one pod of each requests.
func TestTieredGuestbookComponents(t *testing.T) {
	i := New(fixed{customization(t, "tieredguestbook-interpreter.yaml")}, lua.DefaultLimits)
	data, err := os.ReadFile("../artifacts/examples/tieredguestbook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	shop := objectOf(t, strings.Split(string(data), "\n---\n")[0])
	got, err := i.Components(shop)
	if err != nil {
		t.Fatal(err)
	}
	if d := describe(got); d != "frontend=2(1,256Mi) store=1(10,4Gi)" {
		t.Errorf("got %s, want frontend=2(1,256Mi) store=1(10,4Gi)", d)
	}
	// A kind nothing tells the components of has none.
	if got, err := New(nil, lua.DefaultLimits).Components(shop); err != nil || got != nil {
		t.Errorf("without the customization: %v, %v; want none", got, err)
	}
}

// TestComponentsRefused: components a script returns that the API would refuse are an error
// naming the customization, and so is a table that is no list.
func TestComponentsRefused(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`return {{name = "a", replicas = 1}, {name = "a", replicas = 2}}`, `components[1].name: Duplicate value: "a"`},
		{`return {{name = "", replicas = 1}}`, "components[0].name: Required value"},
		{`return {{name = "a-component-name-of-33-characters", replicas = 1}}`, "components[0].name: Too long"},
		{`return {{name = "a", replicas = -1}}`, "components[0].replicas"},
		{`return {{name = "a", replicas = 1, replicaRequirements = {resourceRequest = {cpu = "-1"}}}}`, "resourceRequest"},
		{`return {name = "a"}`, "want a list of components"},
	} {
		c := customization(t, "tieredguestbook-interpreter.yaml")
		c.Spec.Customizations.ComponentResource.LuaScript = "function GetComponents(obj)\n  " + tc.script + "\nend\n"
		_, err := New(fixed{c}, lua.DefaultLimits).Components(objectOf(t, "{apiVersion: webapp.my.domain/v1, kind: TieredGuestbook, metadata: {name: x}, spec: {}}"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "tieredguestbook-interpreter") {
			t.Errorf("%s: %v, want an error of tieredguestbook-interpreter naming %q", tc.script, err, tc.want)
		}
	}
	c := customization(t, "tieredguestbook-interpreter.yaml")
	c.Spec.Customizations.ComponentResource.LuaScript = "function GetComponents(obj)\n  return {}\nend\n"
	if got, err := New(fixed{c}, lua.DefaultLimits).Components(objectOf(t, "{apiVersion: webapp.my.domain/v1, kind: TieredGuestbook, metadata: {name: x}}")); err != nil || len(got) != 0 {
		t.Errorf("an empty table: %v, %v; want no components", got, err)
	}
}

// TestFlinkDeploymentComponents: fed knows Apache Flink's FlinkDeployment: a jobmanager and
// taskmanagers (their replicas, else the job's parallelism over the slots of one), each
// pod's cpu and memory in Flink's units, and the pod template's node selector.
func TestFlinkDeploymentComponents(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"replicas given", `{jobManager: {replicas: 1, resource: {cpu: 1, memory: "2048m"}}, taskManager: {replicas: 3, resource: {cpu: 0.5, memory: 2g}}}`,
			"jobmanager=1(1,2Gi) taskmanager=3(500m,2Gi)"},
		{"taskmanagers from parallelism over slots", `{flinkConfiguration: {taskmanager.numberOfTaskSlots: "2"}, job: {parallelism: 5},
			jobManager: {resource: {cpu: 1, memory: "1024mb"}}, taskManager: {resource: {cpu: 2, memory: "4096 m"}}}`,
			"jobmanager=1(1,1Gi) taskmanager=3(2,4Gi)"},
		{"node selector of the pod template", `{podTemplate: {spec: {nodeSelector: {disk: ssd}}}, jobManager: {resource: {cpu: 1, memory: 1g}}, taskManager: {replicas: 2, resource: {cpu: 1, memory: 1g}}}`,
			"jobmanager=1(1,1Gi)[disk=ssd] taskmanager=2(1,1Gi)[disk=ssd]"},
		{"nothing asked", `{}`, "jobmanager=1 taskmanager=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := objectOf(t, "{apiVersion: flink.apache.org/v1beta1, kind: FlinkDeployment, metadata: {name: job}, spec: "+tc.spec+"}")
			got, err := New(nil, lua.DefaultLimits).Components(obj)
			if err != nil {
				t.Fatal(err)
			}
			if d := describe(got); d != tc.want {
				t.Errorf("got %s, want %s", d, tc.want)
			}
		})
	}
	for _, s := range []string{"12x", "-1m", "m"} {
		if _, ok := flinkMemory(s); ok {
			t.Errorf("flinkMemory(%q): read, want refused", s)
		}
	}
}
