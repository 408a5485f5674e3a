package cluster

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/noderoom"
)

// Reasons of the Ready condition.
const (
	// ReasonClusterReady: the member answers and its /readyz passes.
	ReasonClusterReady = "ClusterReady"
	// ReasonClusterNotReady: the member answers, but /readyz fails or it cannot be observed.
	ReasonClusterNotReady = "ClusterNotReady"
	// ReasonClusterUnreachable: the member does not answer, or fed has no usable credentials.
	ReasonClusterUnreachable = "ClusterUnreachable"
)

// health is what one probe of a member found.
type health int

const (
	healthy health = iota
	notReady
	unreachable
)

// observation is the outcome of one probe. The observed fields are set only when healthy.
type observation struct {
	health health
	// message says why the member is not healthy.
	message string

	kubernetesVersion string
	apiEnablements    []clusterv1alpha1.APIEnablement
	nodeSummary       *clusterv1alpha1.NodeSummary
	resourceSummary   *clusterv1alpha1.ResourceSummary
	// nodes is the member's per-node picture, for the scheduler (not in the status), read
	// from nodesRead on.
	nodes     []noderoom.Node
	nodesRead time.Time
}

// nextStatus is the status a Cluster should have after a probe. failures counts the
// unhealthy probes in a row, this one included: while it is below threshold, a Ready
// member stays Ready, so that one lost probe does not flap it. A member that is not Ready
// keeps the last observed version, APIs and summaries, marked stale by its condition.
func nextStatus(old clusterv1alpha1.ClusterStatus, obs observation, failures, threshold int, now metav1.Time) clusterv1alpha1.ClusterStatus {
	status := *old.DeepCopy()
	cond := metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, LastTransitionTime: now}
	switch obs.health {
	case healthy:
		status.KubernetesVersion = obs.kubernetesVersion
		status.APIEnablements = obs.apiEnablements
		status.NodeSummary = obs.nodeSummary
		status.ResourceSummary = obs.resourceSummary
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, ReasonClusterReady, "cluster is healthy and ready to accept workloads"
	default:
		if failures < threshold && meta.IsStatusConditionTrue(old.Conditions, clusterv1alpha1.ClusterConditionReady) {
			return status
		}
		if obs.health == notReady {
			cond.Status, cond.Reason = metav1.ConditionFalse, ReasonClusterNotReady
		} else {
			// Like a node whose kubelet stopped reporting: fed cannot tell.
			cond.Status, cond.Reason = metav1.ConditionUnknown, ReasonClusterUnreachable
		}
		cond.Message = obs.message
		if old := meta.FindStatusCondition(old.Conditions, clusterv1alpha1.ClusterConditionReady); old != nil && old.Status != metav1.ConditionTrue {
			// Not Ready since it left True, whichever way it failed since: the eviction
			// timeout counts from then, so that a member flapping between not ready and
			// unreachable is evicted too.
			cond.LastTransitionTime = old.LastTransitionTime
		}
	}
	meta.SetStatusCondition(&status.Conditions, cond)
	return status
}

// healthTaints maps the reason of the Ready condition to the taint it calls for.
var healthTaints = map[string]string{
	ReasonClusterNotReady:    clusterv1alpha1.TaintClusterNotReady,
	ReasonClusterUnreachable: clusterv1alpha1.TaintClusterUnreachable,
}

// desiredTaints returns taints with the health taints the Ready condition calls for and
// without the others, leaving every other taint as it was. A member not Ready gets the
// taint of its reason with the effect NoSchedule at once, so that nothing new goes there,
// and with the effect NoExecute once it has been not Ready for grace, so that what runs
// there is moved (see the clusterTolerations of a placement). A NoExecute taint already
// there keeps its TimeAdded. changed is false when taints is already right; recheck, when
// not zero, is how long until the NoExecute taint is due. Without a Ready condition the
// taints are left alone.
func desiredTaints(taints []corev1.Taint, ready *metav1.Condition, now time.Time, grace time.Duration) (_ []corev1.Taint, changed bool, recheck time.Duration) {
	if ready == nil {
		return taints, false, 0
	}
	want, wantExecute := "", false
	if ready.Status != metav1.ConditionTrue {
		want = healthTaints[ready.Reason]
		due := ready.LastTransitionTime.Add(grace)
		if wantExecute = !now.Before(due); !wantExecute {
			recheck = due.Sub(now)
		}
	}
	out := make([]corev1.Taint, 0, len(taints)+2)
	has := map[corev1.TaintEffect]bool{}
	var executeSince *metav1.Time // of a NoExecute health taint of the other key
	for _, t := range taints {
		if isHealthTaint(t.Key) && (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) {
			wanted := t.Key == want && (t.Effect == corev1.TaintEffectNoSchedule || wantExecute)
			if !wanted || has[t.Effect] {
				if t.Effect == corev1.TaintEffectNoExecute && t.TimeAdded != nil {
					executeSince = t.TimeAdded
				}
				changed = true
				continue
			}
			has[t.Effect] = true
		}
		out = append(out, t)
	}
	if want != "" && !has[corev1.TaintEffectNoSchedule] {
		out = append(out, corev1.Taint{Key: want, Effect: corev1.TaintEffectNoSchedule})
		changed = true
	}
	if want != "" && wantExecute && !has[corev1.TaintEffectNoExecute] {
		// A member that went from not ready to unreachable (or back) keeps the time its
		// NoExecute taint began, for the tolerationSeconds that count from it.
		added := &metav1.Time{Time: now}
		if executeSince != nil {
			added = executeSince
		}
		out = append(out, corev1.Taint{Key: want, Effect: corev1.TaintEffectNoExecute, TimeAdded: added})
		changed = true
	}
	if !changed {
		return taints, false, recheck
	}
	return out, true, recheck
}

func isHealthTaint(key string) bool {
	return key == clusterv1alpha1.TaintClusterNotReady || key == clusterv1alpha1.TaintClusterUnreachable
}

// summarizeNodes counts nodes and Ready nodes and sums the allocatable resources of the
// Ready ones.
func summarizeNodes(nodes []corev1.Node) (*clusterv1alpha1.NodeSummary, corev1.ResourceList) {
	summary := &clusterv1alpha1.NodeSummary{TotalNum: int32(len(nodes))}
	allocatable := corev1.ResourceList{}
	for i := range nodes {
		if !nodeReady(&nodes[i]) {
			continue
		}
		summary.ReadyNum++
		addResources(allocatable, nodes[i].Status.Allocatable)
	}
	return summary, allocatable
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// summarizePods sums the requests of the pods that are not terminated: allocated for those
// bound to a node, allocating for those still waiting for one. Each side also counts its
// pods under the "pods" resource, the way node allocatable does.
func summarizePods(pods []corev1.Pod) (allocated, allocating corev1.ResourceList) {
	allocated, allocating = corev1.ResourceList{}, corev1.ResourceList{}
	var bound, pending int64
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if p.Spec.NodeName != "" {
			addResources(allocated, podRequests(p))
			bound++
		} else {
			addResources(allocating, podRequests(p))
			pending++
		}
	}
	allocated[corev1.ResourcePods] = *resource.NewQuantity(bound, resource.DecimalSI)
	allocating[corev1.ResourcePods] = *resource.NewQuantity(pending, resource.DecimalSI)
	return allocated, allocating
}

// podRequests is what a pod asks the scheduler for: its containers' requests (restartable
// init containers, i.e. sidecars, included), at least the largest request of a plain init
// container, which runs alone before them, plus the pod overhead.
func podRequests(p *corev1.Pod) corev1.ResourceList {
	reqs := corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		addResources(reqs, c.Resources.Requests)
	}
	sidecars := corev1.ResourceList{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			addResources(reqs, c.Resources.Requests)
			addResources(sidecars, c.Resources.Requests)
			continue
		}
		// A plain init container runs next to the sidecars started before it.
		initReqs := corev1.ResourceList{}
		addResources(initReqs, c.Resources.Requests)
		addResources(initReqs, sidecars)
		for name, q := range initReqs {
			if cur, ok := reqs[name]; !ok || q.Cmp(cur) > 0 {
				reqs[name] = q.DeepCopy()
			}
		}
	}
	addResources(reqs, p.Spec.Overhead)
	return reqs
}

func addResources(sum, add corev1.ResourceList) {
	for name, q := range add {
		cur := sum[name]
		cur.Add(q)
		sum[name] = cur
	}
}

// apiEnablements lists the group versions of discovery with their resources (not
// subresources), both sorted by name so that an unchanged member yields an unchanged status.
func apiEnablements(lists []*metav1.APIResourceList) []clusterv1alpha1.APIEnablement {
	out := make([]clusterv1alpha1.APIEnablement, 0, len(lists))
	for _, l := range lists {
		if l == nil {
			continue
		}
		e := clusterv1alpha1.APIEnablement{GroupVersion: l.GroupVersion}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			e.Resources = append(e.Resources, clusterv1alpha1.APIResource{Name: r.Name, Kind: r.Kind})
		}
		slices.SortFunc(e.Resources, func(a, b clusterv1alpha1.APIResource) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, e)
	}
	return sortEnablements(out)
}

// sortEnablements sorts group versions by name.
func sortEnablements(out []clusterv1alpha1.APIEnablement) []clusterv1alpha1.APIEnablement {
	slices.SortFunc(out, func(a, b clusterv1alpha1.APIEnablement) int { return strings.Compare(a.GroupVersion, b.GroupVersion) })
	return out
}
