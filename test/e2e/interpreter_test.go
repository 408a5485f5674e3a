package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInterpreterGuestbook teaches fed the guestbook CRD with a customization's Lua
// scripts (artifacts/examples/guestbook-interpreter.yaml): spec.size divided over two
// members, their status summed, their health read; a script that loops forever is stopped
// and reported on the Work while the rest goes on; a script that does not compile is
// refused.
func TestInterpreterGuestbook(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	kubectl(t, fleet, "apply", "-f", filepath.Join(examples, "guestbook-interpreter.yaml"))
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "ric", "guestbook-interpreter", "--ignore-not-found") })
	propagateGuestbook(t, ns, "member1", "member2")
	kubectl(t, fleet, "patch", "pp", "guestbook", "-n", ns, "--type=merge", "-p", `{"spec":{"placement":{"replicaScheduling":{
		"replicaSchedulingType":"Divided","replicaDivisionPreference":"Weighted","weightPreference":{"staticWeightList":[
		{"targetCluster":{"clusterNames":["member1"]},"weight":1},{"targetCluster":{"clusterNames":["member2"]},"weight":1}]}}}}}`)
	kubectl(t, fleet, "patch", "guestbook", "guestbook-sample", "-n", ns, "--type=merge", "-p", `{"spec":{"size":4}}`)

	// replicaResource: the binding counts spec.size, and what each replica asks.
	expectOutput(t, 30*time.Second, fleet, "4 100m member1=2 member2=2", "get", "rb", "guestbook-sample-guestbook", "-n", ns,
		"-o", `jsonpath={.spec.replicas} {.spec.replicaRequirements.resourceRequest.cpu} {range .spec.clusters[*]}{.name}={.replicas} {end}`)
	// replicaRevision: each member's share is its spec.size.
	size := []string{"get", "guestbook", "guestbook-sample", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.size}"}
	expectOutput(t, time.Minute, m1, "2", size...)
	expectOutput(t, time.Minute, m2, "2", size...)

	// No controller runs Guestbooks in the lab: their status is written here, as one would.
	setReplicas := func(member string, n int) {
		kubectl(t, member, "patch", "guestbook", "guestbook-sample", "-n", ns, "--subresource=status", "--type=merge",
			"-p", fmt.Sprintf(`{"status":{"replicas":%d,"guestbookStatus":"running","selector":"app=guestbook"}}`, n))
	}
	setReplicas(m1, 2)
	setReplicas(m2, 1)
	// statusReflection and healthInterpretation per member, statusAggregation for the template.
	expectOutput(t, 30*time.Second, fleet, "member1:Healthy:2 member2:Unhealthy:1", "get", "rb", "guestbook-sample-guestbook", "-n", ns,
		"-o", `jsonpath={range .status.aggregatedStatus[*]}{.clusterName}:{.health}:{.status.replicas} {end}`)
	expectOutput(t, 30*time.Second, fleet, "3 1/2 clusters healthy", "get", "guestbook", "guestbook-sample", "-n", ns,
		"-o", "jsonpath={.status.replicas} {.status.guestbookStatus}")
	setReplicas(m2, 2)
	expectOutput(t, 30*time.Second, fleet, "4 2/2 clusters healthy", "get", "guestbook", "guestbook-sample", "-n", ns,
		"-o", "jsonpath={.status.replicas} {.status.guestbookStatus}")

	// A script that loops forever is stopped, and the member's Work says so; the other
	// member's state and the fleet's other kinds go on.
	kubectl(t, fleet, "patch", "ric", "guestbook-interpreter", "--type=merge", "-p",
		`{"spec":{"customizations":{"healthInterpretation":{"luaScript":"function InterpretHealth(obj) while true do end end"}}}}`)
	setReplicas(m2, 1)
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "works", "-n", "fed-es-member2", ns+".guestbook-sample-guestbook",
			"-o", `jsonpath={.status.conditions[?(@.type=="Available")].reason}: {.status.conditions[?(@.type=="Available")].message}`)
		if want := "InterpreterFailed: ResourceInterpreterCustomization guestbook-interpreter, healthInterpretation: the script ran out of time"; err != nil || !strings.HasPrefix(out, want) {
			return fmt.Errorf("the Work says %q (%v), want %q", out, err, want)
		}
		return nil
	})
	kubectl(t, fleet, "create", "configmap", "after-the-loop", "-n", ns, "--from-literal=a=b")
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: configmaps}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: after-the-loop}]
  placement: {clusterAffinity: {clusterNames: [member2]}}
`, "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, m2, "b", "get", "configmap", "after-the-loop", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.data.a}")

	// A script that does not compile is refused, and the customization keeps what it had.
	_, err := runKubectl(fleet, "patch", "ric", "guestbook-interpreter", "--type=merge", "-p",
		`{"spec":{"customizations":{"healthInterpretation":{"luaScript":"function InterpretHealth(obj) return end end"}}}}`)
	if want := "spec.customizations.healthInterpretation.luaScript: Invalid value: not valid Lua: healthInterpretation line:1(column:44) near 'end': syntax error"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a script that does not compile: %v, want %q", err, want)
	}
	expectOutput(t, 5*time.Second, fleet, "function InterpretHealth(obj) while true do end end", "get", "ric", "guestbook-interpreter",
		"-o", "jsonpath={.spec.customizations.healthInterpretation.luaScript}")

	// Deleting the customization that counted the replicas says so on the template, whose
	// copies each member now gets whole.
	kubectl(t, fleet, "delete", "ric", "guestbook-interpreter")
	waitFor(t, 30*time.Second, func() error {
		out := kubectl(t, fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=guestbook-sample,reason=InterpreterChanged", "-o", "jsonpath={.items[*].message}")
		if !strings.Contains(out, "ResourceInterpreterCustomization guestbook-interpreter, which counted this kind's replicas, was deleted") {
			return fmt.Errorf("events %q, want InterpreterChanged naming the customization", out)
		}
		return nil
	})
	expectOutput(t, time.Minute, m1, "4", size...)
}

// TestInterpreterSeedDeployment runs the seeds' Deployment interpreter
// (artifacts/examples/deployment-interpreter.yaml) on the seeds' nginx example: the
// template's status is the scripts' sum, and a member's replicas changed by hand stay
// (retention). Deleting the customization gives the built-in behaviour back.
func TestInterpreterSeedDeployment(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	kubectl(t, fleet, "apply", "-f", filepath.Join(examples, "deployment-interpreter.yaml"))
	t.Cleanup(func() { _, _ = runKubectl(fleet, "delete", "ric", "deployment-interpreter", "--ignore-not-found") })
	kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "nginx.yaml"))

	ready := []string{"get", "deploy", "nginx", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.replicas}/{.status.readyReplicas}"}
	expectOutput(t, time.Minute, m1, "1/1", ready...)
	expectOutput(t, time.Minute, m2, "1/1", ready...)
	// statusAggregation: replicas, readyReplicas and availableReplicas summed, nothing else
	// (the script writes no observedGeneration nor conditions).
	expectOutput(t, 30*time.Second, fleet, "2/2/2 conditions:", "get", "deploy", "nginx", "-n", ns,
		"-o", "jsonpath={.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas} conditions:{.status.conditions}")
	// healthInterpretation: readyReplicas == replicas.
	expectOutput(t, 30*time.Second, fleet, "Healthy Healthy", "get", "rb", "nginx-deployment", "-n", ns,
		"-o", "jsonpath={.status.aggregatedStatus[*].health}")

	// retention: member1's replicas scaled by hand stay, even when fed applies again.
	kubectl(t, m1, "scale", "deploy", "nginx", "-n", ns, "--replicas=2")
	kubectl(t, fleet, "label", "deploy", "nginx", "-n", ns, "retained=yes")
	expectOutput(t, 30*time.Second, m1, "yes", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.metadata.labels.retained}")
	expectOutput(t, time.Minute, m1, "2/2", ready...)
	expectOutput(t, 30*time.Second, fleet, "3/3/3", "get", "deploy", "nginx", "-n", ns,
		"-o", "jsonpath={.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas}")

	// Without the customization, fed's own knowledge: member1 back to its share.
	kubectl(t, fleet, "delete", "ric", "deployment-interpreter")
	kubectl(t, fleet, "label", "deploy", "nginx", "-n", ns, "retained=no", "--overwrite")
	expectOutput(t, time.Minute, m1, "1/1", ready...)
}
