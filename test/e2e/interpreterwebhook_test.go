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

package e2e

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// guestbookWebhook is an interpreter webhook for Guestbooks, as an operator would serve
// one: InterpretReplica (spec.size, each replica asking 100m of CPU), ReviseReplica (a
// JSON patch of spec.size) and AggregateStatus (the members' status.replicas summed).
func guestbookWebhook(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var ctx struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Request    struct {
				UID       string `json:"uid"`
				Operation string `json:"operation"`
				Object    struct {
					Spec struct {
						Size int32 `json:"size"`
					} `json:"spec"`
				} `json:"object"`
				Replicas         *int32 `json:"replicas"`
				AggregatedStatus []struct {
					Status struct {
						Replicas int32 `json:"replicas"`
					} `json:"status"`
				} `json:"aggregatedStatus"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&ctx); err != nil || ctx.Kind != "ResourceInterpreterContext" {
			http.Error(w, fmt.Sprintf("not a ResourceInterpreterContext: %v", err), http.StatusBadRequest)
			return
		}
		resp := map[string]any{"uid": ctx.Request.UID, "successful": true}
		patch := func(ops ...map[string]any) {
			data, _ := json.Marshal(ops)
			resp["patch"], resp["patchType"] = data, "JSONPatch"
		}
		switch ctx.Request.Operation {
		case "InterpretReplica":
			resp["replicas"] = ctx.Request.Object.Spec.Size
			resp["replicaRequirements"] = map[string]any{"resourceRequest": map[string]any{"cpu": "100m"}}
		case "ReviseReplica":
			patch(map[string]any{"op": "replace", "path": "/spec/size", "value": *ctx.Request.Replicas})
		case "AggregateStatus":
			var sum int32
			for _, item := range ctx.Request.AggregatedStatus {
				sum += item.Status.Replicas
			}
			patch(map[string]any{"op": "add", "path": "/status", "value": map[string]any{"replicas": sum, "guestbookStatus": "summed by the webhook"}})
		default:
			resp["successful"], resp["status"] = false, map[string]any{"message": "not answered: " + ctx.Request.Operation, "code": 400}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": ctx.APIVersion, "kind": ctx.Kind, "response": resp})
	}
}

// TestInterpreterWebhook teaches fed the guestbook CRD with an interpreter webhook the
// test serves (HTTPS on 127.0.0.1, its CA in the configuration's caBundle): spec.size
// divided over two members, each member's share revised by the webhook's patch, their
// status summed by it. With the webhook down, a change of the Guestbook's size fails with
// an InterpreterFailed event naming the webhook, its status says the aggregation failed,
// and another template propagates meanwhile; the webhook back at another address, the
// change goes through. Serial: the webhook answers for every Guestbook of the fleet.
func TestInterpreterWebhook(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2 := memberKubeconfig("member1"), memberKubeconfig("member2")
	srv := httptest.NewTLSServer(guestbookWebhook(t))
	t.Cleanup(srv.Close)
	configure := func(srv *httptest.Server) {
		t.Helper()
		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		caJSON, _ := json.Marshal(ca) // base64, as a []byte field is written
		kubectlStdin(t, fleet, fmt.Sprintf(`apiVersion: federation.fedhq.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata: {name: e2e-guestbook}
webhooks:
- name: guestbook.e2e.fedhq.io
  clientConfig: {url: "%s/interpret", caBundle: %s}
  rules:
  - operations: [InterpretReplica, ReviseReplica, AggregateStatus]
    apiGroups: [webapp.my.domain]
    apiVersions: [v1]
    kinds: [Guestbook]
  timeoutSeconds: 5
  interpreterContextVersions: [v1alpha1]
`, srv.URL, caJSON), "apply", "-f", "-")
	}
	configure(srv)
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "delete", "resourceinterpreterwebhookconfiguration", "e2e-guestbook", "--ignore-not-found")
	})
	if out := kubectl(t, fleet, "get", "resourceinterpreterwebhookconfigurations"); !regexpMatch(`e2e-guestbook\s+1\s`, out) {
		t.Errorf("kubectl get resourceinterpreterwebhookconfigurations:\n%s\nwant WEBHOOKS 1", out)
	}
	propagateGuestbook(t, ns, "member1", "member2")
	kubectl(t, fleet, "patch", "pp", "guestbook", "-n", ns, "--type=merge", "-p", `{"spec":{"placement":{"replicaScheduling":{
		"replicaSchedulingType":"Divided","replicaDivisionPreference":"Weighted","weightPreference":{"staticWeightList":[
		{"targetCluster":{"clusterNames":["member1"]},"weight":1},{"targetCluster":{"clusterNames":["member2"]},"weight":1}]}}}}}`)
	kubectl(t, fleet, "patch", "guestbook", "guestbook-sample", "-n", ns, "--type=merge", "-p", `{"spec":{"size":4}}`)

	// InterpretReplica: the binding counts spec.size, and what each replica asks.
	binding := []string{"get", "rb", "guestbook-sample-guestbook", "-n", ns,
		"-o", `jsonpath={.spec.replicas} {.spec.replicaRequirements.resourceRequest.cpu} {range .spec.clusters[*]}{.name}={.replicas} {end}`}
	expectOutput(t, 30*time.Second, fleet, "4 100m member1=2 member2=2", binding...)
	// ReviseReplica: each member's share is its spec.size.
	size := []string{"get", "guestbook", "guestbook-sample", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.size}"}
	expectOutput(t, time.Minute, m1, "2", size...)
	expectOutput(t, time.Minute, m2, "2", size...)
	// AggregateStatus: no controller runs Guestbooks in the lab; their status is written here.
	setReplicas := func(member string, n int) {
		kubectl(t, member, "patch", "guestbook", "guestbook-sample", "-n", ns, "--subresource=status", "--type=merge",
			"-p", fmt.Sprintf(`{"status":{"replicas":%d,"guestbookStatus":"running"}}`, n))
	}
	setReplicas(m1, 2)
	setReplicas(m2, 1)
	expectOutput(t, 30*time.Second, fleet, "3 summed by the webhook", "get", "guestbook", "guestbook-sample", "-n", ns,
		"-o", "jsonpath={.status.replicas} {.status.guestbookStatus}")

	// The webhook down: the Guestbook's change fails and says so; the rest goes on.
	srv.Close()
	kubectl(t, fleet, "patch", "guestbook", "guestbook-sample", "-n", ns, "--type=merge", "-p", `{"spec":{"size":6}}`)
	waitFor(t, 30*time.Second, func() error {
		out := kubectl(t, fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=guestbook-sample,reason=InterpreterFailed", "-o", "jsonpath={.items[*].message}")
		if !strings.Contains(out, "interpreter webhook e2e-guestbook/guestbook.e2e.fedhq.io, InterpretReplica:") {
			return fmt.Errorf("events %q, want InterpreterFailed naming the webhook", out)
		}
		return nil
	})
	setReplicas(m2, 2)
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "rb", "guestbook-sample-guestbook", "-n", ns,
			"-o", `jsonpath={.status.conditions[?(@.type=="StatusAggregated")].reason}: {.status.conditions[?(@.type=="StatusAggregated")].message}`)
		if want := "InterpreterFailed: interpreter webhook e2e-guestbook/guestbook.e2e.fedhq.io, AggregateStatus:"; err != nil || !strings.HasPrefix(out, want) {
			return fmt.Errorf("the binding says %q (%v), want %q", out, err, want)
		}
		return nil
	})
	kubectl(t, fleet, "create", "configmap", "while-the-webhook-is-down", "-n", ns, "--from-literal=a=b")
	kubectlStdin(t, fleet, `apiVersion: federation.fedhq.io/v1alpha1
kind: PropagationPolicy
metadata: {name: configmaps}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: while-the-webhook-is-down}]
  placement: {clusterAffinity: {clusterNames: [member2]}}
`, "apply", "-n", ns, "-f", "-")
	expectOutput(t, 30*time.Second, m2, "b", "get", "configmap", "while-the-webhook-is-down", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.data.a}")
	expectOutput(t, 5*time.Second, fleet, "4 100m member1=2 member2=2", binding...)

	// Back, at another address: the change goes through, the status is summed again.
	back := httptest.NewTLSServer(guestbookWebhook(t))
	t.Cleanup(back.Close)
	configure(back)
	expectOutput(t, 30*time.Second, fleet, "6 100m member1=3 member2=3", binding...)
	expectOutput(t, time.Minute, m1, "3", size...)
	expectOutput(t, 30*time.Second, fleet, "4 summed by the webhook", "get", "guestbook", "guestbook-sample", "-n", ns,
		"-o", "jsonpath={.status.replicas} {.status.guestbookStatus}")
}
