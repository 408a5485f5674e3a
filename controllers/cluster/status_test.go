package cluster

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/retry"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/fake"
)

// TestWriteStatusConflict: the credentials controller wrote its condition after the informer's
// copy; the probe's status is written over the latest Cluster at once, keeping that condition.
func TestWriteStatusConflict(t *testing.T) {
	token := metav1.Condition{Type: clusterv1alpha1.ClusterConditionTokenCurrent, Status: metav1.ConditionTrue, Reason: "RenewalScheduled", LastTransitionTime: now}
	latest := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1", ResourceVersion: "2"},
		Status: clusterv1alpha1.ClusterStatus{Conditions: []metav1.Condition{token}}}
	client := fake.NewSimpleClientset(latest)
	conflicts := 0
	client.PrependReactor("update", "clusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		u := a.(clienttesting.UpdateAction)
		if u.GetSubresource() == "status" && u.GetObject().(*clusterv1alpha1.Cluster).ResourceVersion != "2" {
			conflicts++
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "cluster.fedhq.io", Resource: "clusters"}, "member1",
				nil)
		}
		return false, nil, nil
	})
	c := &Controller{client: client}
	stale := latest.DeepCopy()
	stale.ResourceVersion, stale.Status = "1", clusterv1alpha1.ClusterStatus{}
	ready := readyCond(metav1.ConditionTrue, ReasonClusterReady, readyMessage, now)
	written, err := c.writeStatus(context.Background(), stale, retry.DefaultRetry, func(s clusterv1alpha1.ClusterStatus) clusterv1alpha1.ClusterStatus {
		s = *s.DeepCopy()
		meta.SetStatusCondition(&s.Conditions, ready)
		return s
	})
	if err != nil {
		t.Fatal(err)
	}
	if conflicts != 1 {
		t.Errorf("%d conflicts, want 1 (the stale copy's write)", conflicts)
	}
	stored, err := client.ClusterV1alpha1().Clusters().Get(context.Background(), "member1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range []*clusterv1alpha1.Cluster{written, stored} {
		if !meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady) ||
			!meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionTokenCurrent) {
			t.Errorf("conditions %+v, want Ready and TokenCurrent both True", cl.Status.Conditions)
		}
	}

	// With a single try (the pull agent's Lease check), the conflict is the caller's, and
	// the Cluster is not read again.
	conflicts = 0
	client.ClearActions()
	if _, err := c.writeStatus(context.Background(), stale, tryOnce, func(s clusterv1alpha1.ClusterStatus) clusterv1alpha1.ClusterStatus {
		s = *s.DeepCopy()
		meta.SetStatusCondition(&s.Conditions, readyCond(metav1.ConditionUnknown, "ClusterUnreachable", "gone", now))
		return s
	}); !apierrors.IsConflict(err) || conflicts != 1 {
		t.Errorf("single try: err %v after %d conflicts, want one Conflict", err, conflicts)
	}
	if n := len(client.Actions()); n != 1 {
		t.Errorf("single try: %d requests, want the one update: %v", n, client.Actions())
	}

	// A status already as next makes it is not written again.
	client.ClearActions()
	if _, err := c.writeStatus(context.Background(), stored, retry.DefaultRetry, func(s clusterv1alpha1.ClusterStatus) clusterv1alpha1.ClusterStatus { return s }); err != nil {
		t.Fatal(err)
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d requests for an unchanged status, want none: %v", n, client.Actions())
	}

	// A Cluster deleted meanwhile: NotFound, for the caller to let it go.
	if err := client.ClusterV1alpha1().Clusters().Delete(context.Background(), "member1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.writeStatus(context.Background(), stale, retry.DefaultRetry, func(s clusterv1alpha1.ClusterStatus) clusterv1alpha1.ClusterStatus {
		s = *s.DeepCopy()
		meta.SetStatusCondition(&s.Conditions, ready)
		return s
	}); !apierrors.IsNotFound(err) {
		t.Errorf("err %v, want NotFound", err)
	}
}
