package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// TestLabSmoke does what the README tells a user to try: the host answers /readyz and a
// Deployment in a member gets its pods Running and Ready on the simulated nodes.
func TestLabSmoke(t *testing.T) {
	t.Parallel()
	if got := kubectl(t, theLab.Host.Kubeconfig, "get", "--raw", "/readyz"); strings.TrimSpace(got) != "ok" {
		t.Fatalf("host /readyz = %q, want ok", got)
	}
	for _, m := range theLab.Members {
		t.Run(m.Name, func(t *testing.T) {
			name := fmt.Sprintf("smoke-%d", time.Now().UnixNano())
			kubectl(t, m.Kubeconfig, "create", "deployment", name, "--image", "nginx", "--replicas", "2")
			t.Cleanup(func() { _, _ = runKubectl(m.Kubeconfig, "delete", "deployment", name, "--wait=false") })

			cs, err := m.Client()
			if err != nil {
				t.Fatal(err)
			}
			var d *appsv1.Deployment
			err = wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				d, err = cs.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return d.Status.ReadyReplicas == 2, nil
			})
			if err != nil {
				t.Fatalf("deployment %s in %s not 2/2 Ready within 30s (status %+v): %v", name, m.Name, d.Status, err)
			}
			pods, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pods.Items {
				if p.Status.Phase != corev1.PodRunning || !strings.HasPrefix(p.Spec.NodeName, m.Name+"-node-") {
					t.Errorf("pod %s: phase %s on node %q, want Running on a %s node", p.Name, p.Status.Phase, p.Spec.NodeName, m.Name)
				}
			}
		})
	}
}

// TestLabMembersDiffer checks the members' simulated nodes carry the capacity and topology
// labels later scheduling tests rely on.
func TestLabMembersDiffer(t *testing.T) {
	t.Parallel()
	for _, m := range theLab.Members {
		cs, err := m.Client()
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := cs.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes.Items) != m.Member.Nodes {
			t.Errorf("%s has %d nodes, want %d", m.Name, len(nodes.Items), m.Member.Nodes)
		}
		for _, n := range nodes.Items {
			if got := n.Labels["topology.kubernetes.io/region"]; got != m.Member.Region {
				t.Errorf("%s node %s region = %q, want %q", m.Name, n.Name, got, m.Member.Region)
			}
			if got := n.Status.Allocatable.Cpu().String(); got != m.Member.CPU {
				t.Errorf("%s node %s allocatable cpu = %s, want %s", m.Name, n.Name, got, m.Member.CPU)
			}
			var ip string
			for _, a := range n.Status.Addresses {
				if a.Type == corev1.NodeInternalIP {
					ip = a.Address
				}
			}
			if ip != m.KubeletIP {
				t.Errorf("%s node %s InternalIP = %q, want the loopback address %s", m.Name, n.Name, ip, m.KubeletIP)
			}
		}
	}
}
