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
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Remedy: TrafficControl on member2 while its Cluster's
// ServiceDomainNameResolutionReady condition (written by the test, as Karmada's agent
// writes it) is False. The action shows in the Cluster's status and goes when the
// condition turns True, or the Remedy is deleted; meanwhile member2's endpoints are
// withheld from member3's import of the seeds' MultiClusterService. A Remedy written by
// someone who may not update the status of Clusters writes nothing and says why. Serial:
// it takes member2's traffic away from every other test's services.
func TestRemedy(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	const condType = "ServiceDomainNameResolutionReady"
	for _, f := range []string{"nginx.yaml", "nginx-service-policy.yaml", "nginx-mcs.yaml"} {
		kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, f))
	}
	remedy := `apiVersion: cluster.fedhq.io/v1alpha1
kind: Remedy
metadata: {name: e2e-dns}
spec:
  clusterAffinity: {clusterNames: [member2]}
  decisionMatches:
  - clusterConditionMatch: {conditionType: ` + condType + `, operator: Equal, conditionStatus: "False"}
  actions: [TrafficControl]
`
	kubectlStdin(t, fleet, remedy, "apply", "-f", "-")
	t.Cleanup(func() {
		_, _ = runKubectl(fleet, "delete", "remedy", "e2e-dns", "--ignore-not-found")
		clusterCondition(t, "member2", condType, "")
		expectOutput(t, 30*time.Second, fleet, "", "get", "cluster", "member2", "-o", "jsonpath={.status.remedyActions}")
	})
	actions := func(want string) {
		t.Helper()
		expectOutput(t, 30*time.Second, fleet, want, "get", "cluster", "member2", "-o", "jsonpath={.status.remedyActions}")
	}
	var ips1, ips2 []string
	waitFor(t, time.Minute, func() error {
		ips1, ips2 = podIPs(t, "member1", ns), podIPs(t, "member2", ns)
		if len(ips1) != 1 || len(ips2) != 1 {
			return fmt.Errorf("pod IPs %v and %v, want one each", ips1, ips2)
		}
		return nil
	})
	imported := func(want string) {
		t.Helper()
		waitFor(t, 30*time.Second, func() error {
			if out, err := importedEndpoints(ns, "nginx"); err != nil || out != want {
				return fmt.Errorf("member3's imported endpoints %q (%v), want %q", out, err, want)
			}
			return nil
		})
	}
	both := "member1=" + ips1[0] + " member2=" + ips2[0]
	imported(both)
	if out := kubectl(t, fleet, "get", "remedy", "e2e-dns"); !regexpMatch(`e2e-dns\s+member2\s+TrafficControl`, out) {
		t.Errorf("kubectl get remedy:\n%s\nwant CLUSTERS member2, ACTIONS TrafficControl", out)
	}

	// No such condition yet: no action.
	time.Sleep(2 * time.Second)
	actions("")
	clusterCondition(t, "member2", condType, metav1.ConditionFalse)
	actions(`["TrafficControl"]`)
	expectOutput(t, 30*time.Second, fleet, "RemedyActionsChanged", "get", "events", "-A", "--field-selector",
		"involvedObject.kind=Cluster,involvedObject.name=member2,reason=RemedyActionsChanged", "-o", "jsonpath={.items[0].reason}")
	imported("member1=" + ips1[0])
	waitFor(t, 30*time.Second, func() error {
		msg, err := runKubectl(fleet, "get", "mcs", "nginx", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].message}`)
		if err != nil || !strings.Contains(msg, "endpoints of member2 withheld: remedy action TrafficControl") {
			return fmt.Errorf("the MultiClusterService's Ready message %q (%v), want member2's endpoints withheld", msg, err)
		}
		return nil
	})

	// The condition True: the action goes, member2's endpoints come back.
	clusterCondition(t, "member2", condType, metav1.ConditionTrue)
	actions("")
	imported(both)

	// False again, then the Remedy deleted: the action goes with it.
	clusterCondition(t, "member2", condType, metav1.ConditionFalse)
	actions(`["TrafficControl"]`)
	kubectl(t, fleet, "delete", "remedy", "e2e-dns")
	actions("")
	imported(both)

	// Written by someone the host lets write Remedies but not the status of Clusters.
	const author = "e2e-remedy-author"
	kubectlStdin(t, theLab.Host.Kubeconfig, `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: e2e-remedy-author}
rules:
- {apiGroups: [cluster.fedhq.io], resources: [remedies], verbs: [get, list, create, update, patch, delete]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: e2e-remedy-author}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: e2e-remedy-author}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: `+author+`}]
`, "apply", "-f", "-")
	t.Cleanup(func() {
		_, _ = runKubectl(theLab.Host.Kubeconfig, "delete", "clusterrolebinding,clusterrole", "e2e-remedy-author", "--ignore-not-found")
	})
	kubectlStdin(t, theLab.Host.Kubeconfig, remedy, "apply", "--as", author, "-f", "-")
	expectOutput(t, 30*time.Second, fleet, "AuthorRefused", "get", "events", "-A", "--field-selector",
		"involvedObject.kind=Remedy,involvedObject.name=e2e-dns,reason=AuthorRefused", "-o", "jsonpath={.items[0].reason}")
	actions("")
}
