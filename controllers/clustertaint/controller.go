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

// Package clustertaint taints member clusters from their status conditions, as the
// ClusterTaintPolicies say: each policy's taints are added to the clusters it targets
// when all its addOnConditions hold, and removed when all its removeOnConditions hold.
// It writes a Cluster's spec.taints for the keys of the policies only, and only the
// taints of a policy whose author may update Clusters (a SubjectAccessReview in the host,
// which authorizes fed's API).
package clustertaint

import (
	"context"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/federation/policy"
	federationv1alpha1 "github.com/fedhq/fed/apis/federation/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/federation/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	fedlisters "github.com/fedhq/fed/apis/generated/listers/federation/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/author"
	"github.com/fedhq/fed/controllers/internal/clusterconditions"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Events on a Cluster (and, for an author refused, on the policy).
const (
	ReasonTainted     = "TaintClusterSucceed"
	ReasonTaintFailed = "TaintClusterFailed"
	ReasonRefused     = "AuthorRefused"
)

// Controller keeps the taints of the ClusterTaintPolicies on the Clusters.
type Controller struct {
	fed      versioned.Interface
	clusters clusterlisters.ClusterLister
	policies fedlisters.ClusterTaintPolicyLister
	recorder record.EventRecorder
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	access   *author.Access
}

// NewController watches clusters and the policies, writes with fed, asks the host whether
// an author may update Clusters, and records events with recorder.
func NewController(fed versioned.Interface, host kubernetes.Interface, clusters clusterinformers.ClusterInformer,
	policies fedinformers.ClusterTaintPolicyInformer, recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{fed: fed, clusters: clusters.Lister(), policies: policies.Lister(), recorder: recorder,
		synced: []cache.InformerSynced{clusters.Informer().HasSynced, policies.Informer().HasSynced},
		queue:  reconciler.NewQueue[string]("cluster-taint"),
		access: author.NewAccess(host)}
	// A cluster's conditions, labels and taints are what a policy reads.
	err := clusterconditions.Watch(c.queue, clusters, policies.Informer(), func(o, n *clusterv1alpha1.Cluster) bool {
		return o.Generation != n.Generation || !apiequality.Semantic.DeepEqual(o.Labels, n.Labels)
	})
	return c, err
}

// Run keeps the taints with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Tainting a cluster by the ClusterTaintPolicies", c.reconcile)
}

func (c *Controller) reconcile(ctx context.Context, name string) error {
	cluster, err := c.clusters.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if cluster.DeletionTimestamp != nil {
		return nil
	}
	policies, err := c.policies.List(labels.Everything())
	if err != nil {
		return err
	}
	// In the order they were made: two policies at odds end the same way every time.
	slices.SortFunc(policies, func(a, b *federationv1alpha1.ClusterTaintPolicy) int {
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return strings.Compare(a.Name, b.Name)
		}
		if a.CreationTimestamp.Before(&b.CreationTimestamp) {
			return -1
		}
		return 1
	})
	taints := slices.Clone(cluster.Spec.Taints)
	var by []string
	for _, p := range policies {
		if p.DeletionTimestamp != nil {
			continue
		}
		if p.Spec.TargetClusters != nil {
			m, err := policy.NewAffinityMatcher(p.Spec.TargetClusters)
			if err != nil {
				continue // refused at the API; an older object is left alone
			}
			if ok, err := m.Matches(cluster); err != nil || !ok {
				continue
			}
		}
		next := Apply(taints, cluster.Status.Conditions, &p.Spec)
		if apiequality.Semantic.DeepEqual(next, taints) {
			continue
		}
		if refused, err := c.access.Refused(ctx, "ClusterTaintPolicy", p, authorizationv1.ResourceAttributes{Verb: "update",
			Group: clusterv1alpha1.GroupName, Resource: "clusters"}, "update clusters."+clusterv1alpha1.GroupName); err != nil {
			return err
		} else if refused != nil {
			c.recorder.Eventf(p, corev1.EventTypeWarning, ReasonRefused, "%v: the policy's taints are not written to %s", refused, cluster.Name)
			continue
		}
		taints = next
		by = append(by, p.Name)
	}
	if apiequality.Semantic.DeepEqual(taints, cluster.Spec.Taints) {
		return nil
	}
	updated := cluster.DeepCopy()
	updated.Spec.Taints = taints
	if _, err := c.fed.ClusterV1alpha1().Clusters().Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		c.recorder.Eventf(cluster, corev1.EventTypeWarning, ReasonTaintFailed, "writing the taints of ClusterTaintPolicy %s: %v", strings.Join(by, ", "), err)
		return err
	}
	c.recorder.Eventf(cluster, corev1.EventTypeNormal, ReasonTainted, "taints now %s, by ClusterTaintPolicy %s", describe(taints), strings.Join(by, ", "))
	return nil
}

// Apply is taints with a policy's taints added when all its addOnConditions hold of
// conditions, then removed when all its removeOnConditions hold. A taint is known by its
// key and effect; one already there keeps its value and time.
func Apply(taints []corev1.Taint, conditions []metav1.Condition, spec *federationv1alpha1.ClusterTaintPolicySpec) []corev1.Taint {
	out := slices.Clone(taints)
	same := func(t corev1.Taint, p federationv1alpha1.PolicyTaint) bool {
		return t.Key == p.Key && t.Effect == p.Effect
	}
	if Holds(conditions, spec.AddOnConditions) {
		for _, p := range spec.Taints {
			if !slices.ContainsFunc(out, func(t corev1.Taint) bool { return same(t, p) }) {
				out = append(out, corev1.Taint{Key: p.Key, Value: p.Value, Effect: p.Effect})
			}
		}
	}
	if Holds(conditions, spec.RemoveOnConditions) {
		out = slices.DeleteFunc(out, func(t corev1.Taint) bool {
			return slices.ContainsFunc(spec.Taints, func(p federationv1alpha1.PolicyTaint) bool { return same(t, p) })
		})
	}
	return out
}

// Holds tells whether every match holds of conditions; none holds of an empty list. A
// condition the cluster does not have matches neither In nor NotIn.
func Holds(conditions []metav1.Condition, matches []federationv1alpha1.MatchCondition) bool {
	if len(matches) == 0 {
		return false
	}
	for _, m := range matches {
		i := slices.IndexFunc(conditions, func(c metav1.Condition) bool { return c.Type == m.ConditionType })
		if i < 0 {
			return false
		}
		in := slices.Contains(m.StatusValues, conditions[i].Status)
		switch m.Operator {
		case federationv1alpha1.MatchConditionOpIn:
			if !in {
				return false
			}
		case federationv1alpha1.MatchConditionOpNotIn:
			if in {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// describe writes taints as kubectl taint does: key=value:effect, comma-separated.
func describe(taints []corev1.Taint) string {
	if len(taints) == 0 {
		return "none"
	}
	parts := make([]string, len(taints))
	for i := range taints {
		parts[i] = taints[i].ToString()
	}
	return strings.Join(parts, ",")
}
