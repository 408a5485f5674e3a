package lab

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// writeKwokConfig writes the member's kwok configuration: the node and pod lifecycle stages
// shipped with kwok (collected into the stages file by the Makefile), plus a simulated exec
// that runs commands in the member's exec directory and simulated container logs.
func (c *Cluster) writeKwokConfig(stagesFile string) error {
	stages, err := os.ReadFile(stagesFile)
	if err != nil {
		return fmt.Errorf("kwok stages: %w (run `make bin`)", err)
	}
	execDir, logFile := c.file("exec"), c.file("container.log")
	if err := os.MkdirAll(execDir, 0o755); err != nil {
		return err
	}
	// Container logs in the CRI format kwok requires.
	var logs strings.Builder
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&logs, "%s stdout F %s: log line %d\n", start.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), c.Name, i)
	}
	if err := os.WriteFile(logFile, []byte(logs.String()), 0o644); err != nil {
		return err
	}
	extra := fmt.Sprintf(`---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: lab-exec
spec:
  execs:
  - local:
      workDir: %s
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: lab-logs
spec:
  logs:
  - logsFile: %s
    follow: true
`, execDir, logFile)
	return os.WriteFile(c.file("kwok.yaml"), append(stages, []byte(extra)...), 0o644)
}

// nodeNames lists a member's simulated nodes.
func (c *Cluster) nodeNames() []string {
	names := make([]string, c.Member.Nodes)
	for i := range names {
		names[i] = c.Name + "-node-" + strconv.Itoa(i)
	}
	return names
}

// ensureNodes creates the member's simulated nodes that do not exist yet. kwok takes over
// nodes with the kwok annotation and makes them Ready.
func (c *Cluster) ensureNodes(ctx context.Context) error {
	cs, err := c.Client()
	if err != nil {
		return err
	}
	m := c.Member
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(m.CPU),
		corev1.ResourceMemory: resource.MustParse(m.Memory),
		corev1.ResourcePods:   resource.MustParse(m.Pods),
	}
	for _, name := range c.nodeNames() {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Annotations: map[string]string{kwokNodeAnnotation: "fake"},
				Labels: map[string]string{
					"kubernetes.io/hostname":        name,
					"kubernetes.io/os":              "linux",
					"kubernetes.io/arch":            "amd64",
					"type":                          "kwok",
					"topology.kubernetes.io/region": m.Region,
					"topology.kubernetes.io/zone":   m.Zone,
					"node.kubernetes.io/provider":   m.Provider,
				},
			},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s: creating node %s: %w", c.Name, name, err)
		}
	}
	return nil
}

// nodesReady reports nil when every simulated node of the member is Ready and schedulable
// (the node lifecycle controller lifted the not-ready taint), and the default service
// account exists (the controller manager is working).
func (c *Cluster) nodesReady(ctx context.Context) error {
	cs, err := c.Client()
	if err != nil {
		return err
	}
	for _, name := range c.nodeNames() {
		node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		ready := false
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			return fmt.Errorf("%s: node %s is not Ready", c.Name, name)
		}
		for _, taint := range node.Spec.Taints {
			if taint.Key == corev1.TaintNodeNotReady {
				return fmt.Errorf("%s: node %s still has taint %s", c.Name, name, taint.Key)
			}
		}
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return fmt.Errorf("%s: default service account: %w", c.Name, err)
	}
	return nil
}
