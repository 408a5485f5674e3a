package cluster

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
)

var (
	earlier = metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	now     = metav1.NewTime(time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC))
)

func readyCond(status metav1.ConditionStatus, reason, message string, at metav1.Time) metav1.Condition {
	return metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: status, Reason: reason, Message: message, LastTransitionTime: at}
}

const readyMessage = "cluster is healthy and ready to accept workloads"

func TestNextStatus(t *testing.T) {
	healthyObs := observation{
		health:            healthy,
		kubernetesVersion: "v1.32.4",
		apiEnablements:    []clusterv1alpha1.APIEnablement{{GroupVersion: "v1", Resources: []clusterv1alpha1.APIResource{{Name: "pods", Kind: "Pod"}}}},
		nodeSummary:       &clusterv1alpha1.NodeSummary{TotalNum: 2, ReadyNum: 2},
	}
	readyStatus := clusterv1alpha1.ClusterStatus{
		KubernetesVersion: "v1.32.3",
		NodeSummary:       &clusterv1alpha1.NodeSummary{TotalNum: 1, ReadyNum: 1},
		Conditions:        []metav1.Condition{readyCond(metav1.ConditionTrue, ReasonClusterReady, readyMessage, earlier)},
	}
	unreachableStatus := clusterv1alpha1.ClusterStatus{
		KubernetesVersion: "v1.32.3",
		Conditions:        []metav1.Condition{readyCond(metav1.ConditionUnknown, ReasonClusterUnreachable, "connection refused", earlier)},
	}
	down := observation{health: unreachable, message: "connection refused"}
	sick := observation{health: notReady, message: "HTTP 500"}

	tests := []struct {
		name     string
		old      clusterv1alpha1.ClusterStatus
		obs      observation
		failures int
		want     clusterv1alpha1.ClusterStatus
	}{{
		name: "new cluster, healthy",
		obs:  healthyObs,
		want: clusterv1alpha1.ClusterStatus{
			KubernetesVersion: "v1.32.4",
			APIEnablements:    healthyObs.apiEnablements,
			NodeSummary:       healthyObs.nodeSummary,
			Conditions:        []metav1.Condition{readyCond(metav1.ConditionTrue, ReasonClusterReady, readyMessage, now)},
		},
	}, {
		name: "ready stays ready: observations refreshed, transition time kept",
		old:  readyStatus,
		obs:  healthyObs,
		want: clusterv1alpha1.ClusterStatus{
			KubernetesVersion: "v1.32.4",
			APIEnablements:    healthyObs.apiEnablements,
			NodeSummary:       healthyObs.nodeSummary,
			Conditions:        []metav1.Condition{readyCond(metav1.ConditionTrue, ReasonClusterReady, readyMessage, earlier)},
		},
	}, {
		name:     "one failed probe of a ready cluster changes nothing",
		old:      readyStatus,
		obs:      down,
		failures: 1,
		want:     readyStatus,
	}, {
		name:     "second failed probe makes it unreachable, last observations kept",
		old:      readyStatus,
		obs:      down,
		failures: 2,
		want: clusterv1alpha1.ClusterStatus{
			KubernetesVersion: "v1.32.3",
			NodeSummary:       readyStatus.NodeSummary,
			Conditions:        []metav1.Condition{readyCond(metav1.ConditionUnknown, ReasonClusterUnreachable, "connection refused", now)},
		},
	}, {
		name:     "answers but not ready",
		old:      readyStatus,
		obs:      sick,
		failures: 2,
		want: clusterv1alpha1.ClusterStatus{
			KubernetesVersion: "v1.32.3",
			NodeSummary:       readyStatus.NodeSummary,
			Conditions:        []metav1.Condition{readyCond(metav1.ConditionFalse, ReasonClusterNotReady, "HTTP 500", now)},
		},
	}, {
		name:     "new cluster unreachable at once: nothing to keep",
		obs:      down,
		failures: 1,
		want: clusterv1alpha1.ClusterStatus{
			Conditions: []metav1.Condition{readyCond(metav1.ConditionUnknown, ReasonClusterUnreachable, "connection refused", now)},
		},
	}, {
		name:     "still unreachable keeps its transition time",
		old:      unreachableStatus,
		obs:      down,
		failures: 5,
		want:     unreachableStatus,
	}, {
		name:     "unreachable, then not ready: not Ready since it left True",
		old:      unreachableStatus,
		obs:      observation{health: notReady, message: "readyz failed"},
		failures: 5,
		want: clusterv1alpha1.ClusterStatus{
			KubernetesVersion: unreachableStatus.KubernetesVersion,
			Conditions:        []metav1.Condition{readyCond(metav1.ConditionFalse, ReasonClusterNotReady, "readyz failed", earlier)},
		},
	}, {
		name: "back from unreachable",
		old:  unreachableStatus,
		obs:  healthyObs,
		want: clusterv1alpha1.ClusterStatus{
			KubernetesVersion: "v1.32.4",
			APIEnablements:    healthyObs.apiEnablements,
			NodeSummary:       healthyObs.nodeSummary,
			Conditions:        []metav1.Condition{readyCond(metav1.ConditionTrue, ReasonClusterReady, readyMessage, now)},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := tt.old.DeepCopy()
			got := nextStatus(tt.old, tt.obs, tt.failures, 2, now)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nextStatus (-want +got):\n%s", diff)
			}
			if !apiequality.Semantic.DeepEqual(old, &tt.old) {
				t.Errorf("nextStatus modified its input")
			}
		})
	}
}

func TestDesiredTaints(t *testing.T) {
	notReadyTaint := corev1.Taint{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoSchedule}
	unreachableTaint := corev1.Taint{Key: clusterv1alpha1.TaintClusterUnreachable, Effect: corev1.TaintEffectNoSchedule}
	cordon := corev1.Taint{Key: clusterv1alpha1.TaintClusterUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	userNoExecute := corev1.Taint{Key: clusterv1alpha1.TaintClusterUnreachable, Effect: corev1.TaintEffectNoExecute}
	ready := readyCond(metav1.ConditionTrue, ReasonClusterReady, "", now)
	notReadyC := readyCond(metav1.ConditionFalse, ReasonClusterNotReady, "", now)
	unreachableC := readyCond(metav1.ConditionUnknown, ReasonClusterUnreachable, "", now)
	const grace = 30 * time.Second
	longAgo := metav1.NewTime(now.Add(-grace))
	unreachableLong := readyCond(metav1.ConditionUnknown, ReasonClusterUnreachable, "", longAgo)
	notReadyLong := readyCond(metav1.ConditionFalse, ReasonClusterNotReady, "", longAgo)
	unreachableExecute := corev1.Taint{Key: clusterv1alpha1.TaintClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &now}
	earlierExecute := corev1.Taint{Key: clusterv1alpha1.TaintClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &longAgo}
	otherNoExecute := corev1.Taint{Key: "drill", Effect: corev1.TaintEffectNoExecute}
	notReadyEarlier := corev1.Taint{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &longAgo}

	tests := []struct {
		name        string
		taints      []corev1.Taint
		ready       *metav1.Condition
		want        []corev1.Taint
		wantChanged bool
		wantRecheck time.Duration
	}{
		{name: "no condition yet", taints: []corev1.Taint{cordon}, want: []corev1.Taint{cordon}},
		{name: "ready, untainted", ready: &ready, want: nil},
		{name: "ready removes both, keeps others", taints: []corev1.Taint{cordon, notReadyTaint, unreachableTaint}, ready: &ready,
			want: []corev1.Taint{cordon}, wantChanged: true},
		{name: "unreachable adds its taint", taints: []corev1.Taint{cordon}, ready: &unreachableC,
			want: []corev1.Taint{cordon, unreachableTaint}, wantChanged: true, wantRecheck: grace},
		{name: "unreachable already tainted", taints: []corev1.Taint{unreachableTaint, cordon}, ready: &unreachableC,
			want: []corev1.Taint{unreachableTaint, cordon}, wantRecheck: grace},
		{name: "not ready swaps the taint", taints: []corev1.Taint{unreachableTaint}, ready: &notReadyC,
			want: []corev1.Taint{notReadyTaint}, wantChanged: true, wantRecheck: grace},
		{name: "duplicate health taint is dropped", taints: []corev1.Taint{notReadyTaint, notReadyTaint}, ready: &notReadyC,
			want: []corev1.Taint{notReadyTaint}, wantChanged: true, wantRecheck: grace},
		{name: "ready removes the NoExecute health taint too", taints: []corev1.Taint{userNoExecute}, ready: &ready,
			want: nil, wantChanged: true},
		{name: "a NoExecute taint of another key is left alone", taints: []corev1.Taint{otherNoExecute}, ready: &ready,
			want: []corev1.Taint{otherNoExecute}},
		{name: "unreachable for the grace period adds NoExecute", taints: []corev1.Taint{unreachableTaint}, ready: &unreachableLong,
			want: []corev1.Taint{unreachableTaint, unreachableExecute}, wantChanged: true},
		{name: "NoExecute keeps its time", taints: []corev1.Taint{unreachableTaint, earlierExecute}, ready: &unreachableLong,
			want: []corev1.Taint{unreachableTaint, earlierExecute}},
		{name: "not ready swaps the NoExecute taint, keeping its time", taints: []corev1.Taint{unreachableTaint, earlierExecute}, ready: &notReadyLong,
			want: []corev1.Taint{notReadyTaint, notReadyEarlier}, wantChanged: true},
		{name: "unreachable for less than the grace period", taints: []corev1.Taint{unreachableTaint}, ready: &unreachableC,
			want: []corev1.Taint{unreachableTaint}, wantRecheck: grace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, recheck := desiredTaints(tt.taints, tt.ready, now.Time, grace)
			if changed != tt.wantChanged || recheck != tt.wantRecheck {
				t.Errorf("changed, recheck = %v, %v, want %v, %v", changed, recheck, tt.wantChanged, tt.wantRecheck)
			}
			if len(got) != 0 || len(tt.want) != 0 {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("taints (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func node(name string, ready corev1.ConditionStatus, cpu, mem string) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	n.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(mem),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	if ready != "" {
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: ready}}
	}
	return n
}

func equalResources(t *testing.T, what string, got corev1.ResourceList, want map[corev1.ResourceName]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
		return
	}
	for name, w := range want {
		q, ok := got[name]
		if !ok || q.Cmp(resource.MustParse(w)) != 0 {
			t.Errorf("%s[%s] = %s, want %s", what, name, q.String(), w)
		}
	}
}

func TestSummarizeNodes(t *testing.T) {
	tests := []struct {
		name            string
		nodes           []corev1.Node
		want            clusterv1alpha1.NodeSummary
		wantAllocatable map[corev1.ResourceName]string
	}{
		{name: "no nodes", want: clusterv1alpha1.NodeSummary{}, wantAllocatable: map[corev1.ResourceName]string{}},
		{name: "two ready", nodes: []corev1.Node{node("a", corev1.ConditionTrue, "8", "16Gi"), node("b", corev1.ConditionTrue, "8", "16Gi")},
			want:            clusterv1alpha1.NodeSummary{TotalNum: 2, ReadyNum: 2},
			wantAllocatable: map[corev1.ResourceName]string{"cpu": "16", "memory": "32Gi", "pods": "220"}},
		{name: "not ready and unknown nodes count but add nothing", nodes: []corev1.Node{
			node("a", corev1.ConditionTrue, "4", "8Gi"), node("b", corev1.ConditionFalse, "8", "16Gi"),
			node("c", corev1.ConditionUnknown, "8", "16Gi"), node("d", "", "8", "16Gi")},
			want:            clusterv1alpha1.NodeSummary{TotalNum: 4, ReadyNum: 1},
			wantAllocatable: map[corev1.ResourceName]string{"cpu": "4", "memory": "8Gi", "pods": "110"}},
		{name: "milli cpu adds up", nodes: []corev1.Node{node("a", corev1.ConditionTrue, "1500m", "1Gi"), node("b", corev1.ConditionTrue, "500m", "512Mi")},
			want:            clusterv1alpha1.NodeSummary{TotalNum: 2, ReadyNum: 2},
			wantAllocatable: map[corev1.ResourceName]string{"cpu": "2", "memory": "1536Mi", "pods": "220"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, allocatable := summarizeNodes(tt.nodes)
			if *got != tt.want {
				t.Errorf("summary = %+v, want %+v", *got, tt.want)
			}
			equalResources(t, "allocatable", allocatable, tt.wantAllocatable)
		})
	}
}

func container(cpu, mem string) corev1.Container {
	c := corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}}}
	if cpu != "" {
		c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		c.Resources.Requests[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return c
}

func pod(nodeName string, phase corev1.PodPhase, containers ...corev1.Container) corev1.Pod {
	return corev1.Pod{Spec: corev1.PodSpec{NodeName: nodeName, Containers: containers}, Status: corev1.PodStatus{Phase: phase}}
}

func TestSummarizePods(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := container("100m", "64Mi")
	sidecar.RestartPolicy = &always
	withInit := pod("n1", corev1.PodRunning, container("200m", "128Mi"))
	withInit.Spec.InitContainers = []corev1.Container{container("1", "64Mi")}
	withSidecar := pod("n1", corev1.PodRunning, container("200m", "128Mi"))
	withSidecar.Spec.InitContainers = []corev1.Container{sidecar, container("50m", "")}
	withOverhead := pod("", corev1.PodPending, container("100m", ""))
	withOverhead.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}

	tests := []struct {
		name                          string
		pods                          []corev1.Pod
		wantAllocated, wantAllocating map[corev1.ResourceName]string
	}{
		{name: "no pods",
			wantAllocated: map[corev1.ResourceName]string{"pods": "0"}, wantAllocating: map[corev1.ResourceName]string{"pods": "0"}},
		{name: "bound, pending and terminated", pods: []corev1.Pod{
			pod("n1", corev1.PodRunning, container("250m", "256Mi"), container("250m", "")),
			pod("n2", corev1.PodPending, container("1", "1Gi")),
			pod("", corev1.PodPending, container("2", "2Gi")),
			pod("n1", corev1.PodSucceeded, container("4", "4Gi")),
			pod("n1", corev1.PodFailed, container("4", "4Gi")),
			pod("n1", corev1.PodRunning), // best effort: no requests, still a pod
		},
			wantAllocated:  map[corev1.ResourceName]string{"cpu": "1500m", "memory": "1280Mi", "pods": "3"},
			wantAllocating: map[corev1.ResourceName]string{"cpu": "2", "memory": "2Gi", "pods": "1"}},
		{name: "an init container larger than the containers counts alone", pods: []corev1.Pod{withInit},
			wantAllocated:  map[corev1.ResourceName]string{"cpu": "1", "memory": "128Mi", "pods": "1"},
			wantAllocating: map[corev1.ResourceName]string{"pods": "0"}},
		{name: "sidecars add to the containers", pods: []corev1.Pod{withSidecar},
			wantAllocated:  map[corev1.ResourceName]string{"cpu": "300m", "memory": "192Mi", "pods": "1"},
			wantAllocating: map[corev1.ResourceName]string{"pods": "0"}},
		{name: "overhead of a pending pod", pods: []corev1.Pod{withOverhead},
			wantAllocated:  map[corev1.ResourceName]string{"pods": "0"},
			wantAllocating: map[corev1.ResourceName]string{"cpu": "110m", "pods": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allocated, allocating := summarizePods(tt.pods)
			equalResources(t, "allocated", allocated, tt.wantAllocated)
			equalResources(t, "allocating", allocating, tt.wantAllocating)
		})
	}
}

func TestAPIEnablements(t *testing.T) {
	lists := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Kind: "Pod"}, {Name: "pods/status", Kind: "Pod"}, {Name: "configmaps", Kind: "ConfigMap"}}},
		nil,
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{{Name: "deployments", Kind: "Deployment"}}},
		{GroupVersion: "empty.example.com/v1"},
	}
	want := []clusterv1alpha1.APIEnablement{
		{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}},
		{GroupVersion: "empty.example.com/v1"},
		{GroupVersion: "v1", Resources: []clusterv1alpha1.APIResource{{Name: "configmaps", Kind: "ConfigMap"}, {Name: "pods", Kind: "Pod"}}},
	}
	if diff := cmp.Diff(want, apiEnablements(lists)); diff != "" {
		t.Errorf("apiEnablements (-want +got):\n%s", diff)
	}
}
