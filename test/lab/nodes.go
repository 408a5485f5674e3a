package lab

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

const (
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
	// metricsPathAnnotation tells metrics-server where a node's resource metrics are: kwok
	// serves every node of a member on one address, so the path names the node.
	metricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
)

// nodeMetricsPath is where kwok serves a node's simulated resource metrics.
func nodeMetricsPath(node string) string { return "/metrics/nodes/" + node + "/metrics/resource" }

// kwokMetrics is the simulated resource usage kwok serves in the kubelet's resource metrics
// format, for metrics-server: what kwok's kustomize/metrics ship, reduced to the series
// metrics-server reads. A container uses what its pod's kwok.x-k8s.io/usage-cpu and
// usage-memory annotations say (1m and 1Mi by default); a node uses its pods' sum plus a
// baseline of 50m and 256Mi, so that an idle node has metrics too (metrics-server drops a
// node whose usage is zero).
const kwokMetrics = `---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterResourceUsage
metadata:
  name: lab-usage-from-annotation
spec:
  usages:
  - usage:
      cpu:
        expression: |
          "kwok.x-k8s.io/usage-cpu" in pod.metadata.annotations
          ? Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-cpu"])
          : Quantity("1m")
      memory:
        expression: |
          "kwok.x-k8s.io/usage-memory" in pod.metadata.annotations
          ? Quantity(pod.metadata.annotations["kwok.x-k8s.io/usage-memory"])
          : Quantity("1Mi")
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Metric
metadata:
  name: lab-metrics-resource
spec:
  path: "/metrics/nodes/{nodeName}/metrics/resource"
  metrics:
  - name: node_cpu_usage_seconds_total
    dimension: node
    kind: counter
    value: 'node.CumulativeUsage("cpu") + 0.05 * node.SinceSecond()'
  - name: node_memory_working_set_bytes
    dimension: node
    kind: gauge
    value: 'node.Usage("memory") + 268435456.0'
  - name: container_start_time_seconds
    dimension: container
    kind: gauge
    labels:
    - name: container
      value: 'container.name'
    - name: namespace
      value: 'pod.metadata.namespace'
    - name: pod
      value: 'pod.metadata.name'
    value: 'pod.SinceSecond()'
  - name: container_cpu_usage_seconds_total
    dimension: container
    kind: counter
    labels:
    - name: container
      value: 'container.name'
    - name: namespace
      value: 'pod.metadata.namespace'
    - name: pod
      value: 'pod.metadata.name'
    value: 'pod.CumulativeUsage("cpu", container.name)'
  - name: container_memory_working_set_bytes
    dimension: container
    kind: gauge
    labels:
    - name: container
      value: 'container.name'
    - name: namespace
      value: 'pod.metadata.namespace'
    - name: pod
      value: 'pod.metadata.name'
    value: 'pod.Usage("memory", container.name)'
`

// writeKwokConfig writes the member's kwok configuration: the node and pod lifecycle stages
// shipped with kwok (collected into the stages file by the Makefile), plus a simulated exec
// that runs commands in the member's exec directory, simulated container logs, and simulated
// resource usage for metrics-server (kwokMetrics).
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
	// kubectl attach follows the attach log from its end: what is appended while attached.
	attachFile := c.file("attach.log")
	attach, err := os.OpenFile(attachFile, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	attach.Close()
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
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterAttach
metadata:
  name: lab-attach
spec:
  attaches:
  - logsFile: %s
`, execDir, logFile, attachFile)
	return os.WriteFile(c.file("kwok.yaml"), append(stages, []byte(extra+kwokMetrics)...), 0o644)
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
// nodes with the kwok annotation and makes them Ready. A node made by an older lab gets the
// annotation that tells metrics-server where its metrics are.
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
				Annotations: map[string]string{kwokNodeAnnotation: "fake", metricsPathAnnotation: nodeMetricsPath(name)},
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
		_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = c.annotateMetricsPath(ctx, cs, name)
		}
		if err != nil {
			return fmt.Errorf("%s: creating node %s: %w", c.Name, name, err)
		}
	}
	return nil
}

// annotateMetricsPath adds the metrics path annotation to an existing node that lacks it.
func (c *Cluster) annotateMetricsPath(ctx context.Context, cs kubernetes.Interface, name string) error {
	node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil || node.Annotations[metricsPathAnnotation] == nodeMetricsPath(name) {
		return err
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, metricsPathAnnotation, nodeMetricsPath(name))
	_, err = cs.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
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
			if taint.Key != corev1.TaintNodeNotReady {
				continue
			}
			if !c.Member.Light {
				return fmt.Errorf("%s: node %s still has taint %s", c.Name, name, taint.Key)
			}
			// No node lifecycle controller lifts the taint the apiserver puts on a new
			// node; the lab does, as that controller would once the node is Ready.
			node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
			if _, err := cs.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
				return err
			}
			break
		}
	}
	if c.Member.Light {
		return nil // no controller manager makes the default service account
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
		return fmt.Errorf("%s: default service account: %w", c.Name, err)
	}
	return nil
}
