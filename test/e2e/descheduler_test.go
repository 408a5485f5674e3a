package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedhq/fed/test/lab"
)

// TestDeschedulerMovesUnschedulableReplicas divides a Deployment by dynamic weights over
// member2 and member3, then cordons member2's nodes and deletes its pods there: their
// replacements stay Pending, unschedulable. After the lab's --unschedulable-threshold the
// descheduler takes those replicas from member2, and the scheduler, which sees no room on
// member2's cordoned nodes, places them on member3.
func TestDeschedulerMovesUnschedulableReplicas(t *testing.T) {
	ctx := context.Background()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	fleet := theLab.FleetKubeconfig()
	propagate(t, ns, "stuck", 6, "{cpu: 100m}", "{clusterAffinity: {clusterNames: [member2, member3]}, replicaScheduling: "+
		"{replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {dynamicWeight: AvailableReplicas}}}")
	var onMember2 int32
	waitFor(t, 30*time.Second, func() error {
		out, err := runKubectl(fleet, "get", "rb", "stuck-deployment", "-n", ns, "-o", `jsonpath={.spec.clusters[?(@.name=="member2")].replicas}`)
		if err != nil || out == "" || out == "0" {
			return fmt.Errorf("member2's replicas: %q (%v)", out, err)
		}
		_, err = fmt.Sscan(out, &onMember2)
		return err
	})
	m2 := memberClient(t, "member2")
	expectReady(t, time.Minute, m2, "member2", ns, "stuck", onMember2)

	member2 := memberKubeconfig("member2")
	nodes := strings.Fields(kubectl(t, member2, "get", "nodes", "-o", "name"))
	t.Cleanup(func() {
		for _, n := range nodes {
			_, _ = runKubectl(member2, "uncordon", n)
		}
	})
	for _, n := range nodes {
		kubectl(t, member2, "cordon", n)
	}
	kubectl(t, member2, "delete", "pods", "-n", ns, "-l", "app=stuck", "--wait=false")
	start := time.Now()
	expectOutput(t, lab.UnschedulableThreshold+lab.DeschedulingInterval+time.Minute, fleet, "member3=6 | True",
		"get", "rb", "stuck-deployment", "-n", ns, "-o",
		`jsonpath={range .spec.clusters[*]}{.name}={.replicas}{end} | {.status.conditions[?(@.type=="Scheduled")].status}`)
	t.Logf("member2's %d replicas moved to member3 %s after its pods were deleted", onMember2, time.Since(start).Round(100*time.Millisecond))
	// The descheduler asked; the scheduler, the one writer of spec.clusters, moved them
	// and took the request away in the same write.
	expectOutput(t, 10*time.Second, fleet, "", "get", "rb", "stuck-deployment", "-n", ns, "-o", "jsonpath={.spec.replicaMoves}")
	expectOutput(t, 30*time.Second, fleet, "Descheduled", "get", "events", "-n", ns, "--field-selector",
		"involvedObject.name=stuck,reason=Descheduled", "-o", "jsonpath={.items[0].reason}")
	expectReady(t, time.Minute, memberClient(t, "member3"), "member3", ns, "stuck", 6)
	waitFor(t, 30*time.Second, func() error {
		if _, err := m2.AppsV1().Deployments(ns).Get(ctx, "stuck", metav1.GetOptions{}); err == nil {
			return fmt.Errorf("member2 still has its copy")
		}
		return nil
	})
	removeWorkload(t, ns, "stuck")
}
