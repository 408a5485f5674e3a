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
)

// memberKubeconfig is the admin kubeconfig of a member of the lab.
func memberKubeconfig(name string) string { return filepath.Join(theLab.Dir(), name+".kubeconfig") }

// expectOutput waits until kubectl prints want.
func expectOutput(t *testing.T, timeout time.Duration, kubeconfig, want string, args ...string) {
	t.Helper()
	waitFor(t, timeout, func() error {
		out, err := runKubectl(kubeconfig, args...)
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) != want {
			return fmt.Errorf("kubectl %s printed %q, want %q", strings.Join(args, " "), strings.TrimSpace(out), want)
		}
		return nil
	})
}

// TestPropagationNginx walks the seeds' nginx example through the whole pipeline: two
// replicas divided 1:1 over member1 and member2, moved to member2, scaled to 4, the
// template's status summed, the policy deleted (the members keep their copies) and the
// template deleted (they go).
func TestPropagationNginx(t *testing.T) {
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	m1, m2, m3 := memberKubeconfig("member1"), memberKubeconfig("member2"), memberKubeconfig("member3")
	kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "nginx.yaml"))

	ready := []string{"get", "deploy", "nginx", "-n", ns, "--ignore-not-found", "-o", "jsonpath={.spec.replicas}/{.status.readyReplicas} {.metadata.labels.federation\\.fedhq\\.io/managed}"}
	expectOutput(t, time.Minute, m1, "1/1 true", ready...)
	expectOutput(t, time.Minute, m2, "1/1 true", ready...)
	expectOutput(t, 5*time.Second, m3, "", ready...)
	// One pod, Running and Ready, in each.
	pods := []string{"get", "pods", "-n", ns, "-l", "app=nginx", "-o", `jsonpath={range .items[*]}{.status.phase}/{.status.conditions[?(@.type=="Ready")].status} {end}`}
	expectOutput(t, time.Minute, m1, "Running/True", pods...)
	expectOutput(t, time.Minute, m2, "Running/True", pods...)
	// The template's status is the sum.
	expectOutput(t, 30*time.Second, fleet, "2/2/2", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas}")
	expectOutput(t, 10*time.Second, fleet, "True", "get", "rb", "nginx-deployment", "-n", ns, "-o", `jsonpath={.status.conditions[?(@.type=="FullyApplied")].status}`)

	// Moved to member2: member1 is cleaned.
	kubectl(t, fleet, "patch", "pp", "nginx-propagation", "-n", ns, "--type=merge", "-p", `{"spec":{"placement":{"clusterAffinity":{"clusterNames":["member2"]}}}}`)
	expectOutput(t, time.Minute, m1, "", ready...)
	expectOutput(t, time.Minute, m2, "2/2 true", ready...)

	// Scaled to 4: the member follows and the template says 4/4 ready.
	kubectl(t, fleet, "scale", "deploy", "nginx", "-n", ns, "--replicas=4")
	expectOutput(t, time.Minute, m2, "4/4 true", ready...)
	expectOutput(t, 30*time.Second, fleet, "4/4/4", "get", "deploy", "nginx", "-n", ns, "-o", "jsonpath={.status.replicas}/{.status.readyReplicas}/{.status.availableReplicas}")

	// The template's events tell the story.
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "events", "-n", ns, "--field-selector", "involvedObject.name=nginx", "-o", "jsonpath={range .items[*]}{.reason}:{.message}{\"\\n\"}{end}")
		if err != nil {
			return err
		}
		for _, want := range []string{"PolicyApplied:propagated by PropagationPolicy " + ns + "/nginx-propagation", "Synced:applied to cluster member2"} {
			if !strings.Contains(out, want) {
				return fmt.Errorf("events of the template:\n%s\nwant a line %q", out, want)
			}
		}
		return nil
	})

	// Deleting the policy leaves the member's Deployment, no longer fed's.
	kubectl(t, fleet, "delete", "pp", "nginx-propagation", "-n", ns)
	expectOutput(t, 30*time.Second, fleet, "", "get", "rb", "nginx-deployment", "-n", ns, "--ignore-not-found", "-o", "name")
	expectOutput(t, 30*time.Second, m2, "4/4", ready...)
	// The same template's policy back takes it over again without a conflict.
	kubectl(t, fleet, "apply", "-n", ns, "-f", filepath.Join(examples, "nginx.yaml"))
	// (The file says 2 replicas, divided 1:1 again.)
	expectOutput(t, time.Minute, m1, "1/1 true", ready...)
	expectOutput(t, time.Minute, m2, "1/1 true", ready...)

	// Deleting the template deletes it from every member.
	kubectl(t, fleet, "delete", "deploy", "nginx", "-n", ns)
	expectOutput(t, time.Minute, m1, "", ready...)
	expectOutput(t, time.Minute, m2, "", ready...)
	expectOutput(t, 30*time.Second, fleet, "", "get", "works", "-A", "--field-selector", "metadata.name="+ns+".nginx-deployment", "-o", "name")
}
