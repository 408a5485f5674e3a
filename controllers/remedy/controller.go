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

// Package remedy writes the actions of the Remedies into the status of the Clusters they
// match (status.remedyActions): a cluster's actions are the union of the actions of every
// Remedy that looks at it and of which a decision match holds, and go once none does. It
// is the one writer of that field, and writes a Remedy's actions only while its author may
// update the status of Clusters (a SubjectAccessReview in the host, which authorizes fed's
// API).
package remedy

import (
	"context"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/author"
	"github.com/fedhq/fed/controllers/internal/clusterconditions"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Events on a Cluster (and, for an author refused, on the Remedy).
const (
	ReasonActions  = "RemedyActionsChanged"
	ReasonRefused  = "AuthorRefused"
	ReasonWriteErr = "RemedyActionsFailed"
)

// recheck is how often the rights of the authors of the Remedies that match a cluster are
// asked again (the host's answers are kept as long).
const recheck = time.Minute

// Controller keeps the Clusters' remedy actions.
type Controller struct {
	fed      versioned.Interface
	clusters clusterlisters.ClusterLister
	remedies clusterlisters.RemedyLister
	recorder record.EventRecorder
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	access   *author.Access
}

// NewController watches the Clusters and the Remedies, writes with fed, asks the host
// whether an author may update the status of Clusters, and records events with recorder.
func NewController(fed versioned.Interface, host kubernetes.Interface, clusters clusterinformers.ClusterInformer,
	remedies clusterinformers.RemedyInformer, recorder record.EventRecorder) (*Controller, error) {
	c := &Controller{fed: fed, clusters: clusters.Lister(), remedies: remedies.Lister(), recorder: recorder,
		synced: []cache.InformerSynced{clusters.Informer().HasSynced, remedies.Informer().HasSynced},
		queue:  reconciler.NewQueue[string]("remedy"),
		access: author.NewAccess(host)}
	// A cluster's conditions are what a remedy reads; its actions are what it writes (put
	// back when someone else changed them).
	err := clusterconditions.Watch(c.queue, clusters, remedies.Informer(), func(o, n *clusterv1alpha1.Cluster) bool {
		return !slices.Equal(o.Status.RemedyActions, n.Status.RemedyActions)
	})
	return c, err
}

// Run keeps the actions with workers until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	reconciler.Run(ctx, c.queue, workers, c.synced, "Writing a cluster's remedy actions", c.reconcile)
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
	remedies, err := c.remedies.List(labels.Everything())
	if err != nil {
		return err
	}
	slices.SortFunc(remedies, func(a, b *clusterv1alpha1.Remedy) int { return strings.Compare(a.Name, b.Name) })
	actions := sets.New[string]()
	var by []string
	// While a Remedy matches, its author's rights are asked again each minute: actions
	// are written, and kept, only while they hold.
	var done error
	for _, r := range remedies {
		if r.DeletionTimestamp != nil || len(r.Spec.Actions) == 0 || !Matches(&r.Spec, cluster) {
			continue
		}
		done = reconciler.RequeueAfter(recheck, nil)
		if refused, err := c.access.Refused(ctx, "Remedy", r, authorizationv1.ResourceAttributes{Verb: "update", Group: clusterv1alpha1.GroupName,
			Resource: "clusters", Subresource: "status"}, "update clusters/status."+clusterv1alpha1.GroupName); err != nil {
			return err
		} else if refused != nil {
			c.recorder.Eventf(r, corev1.EventTypeWarning, ReasonRefused, "%v: its actions are not written to %s", refused, cluster.Name)
			continue
		}
		for _, a := range r.Spec.Actions {
			actions.Insert(string(a))
		}
		by = append(by, r.Name)
	}
	want := sets.List(actions)
	if slices.Equal(want, cluster.Status.RemedyActions) {
		return done
	}
	clusters := c.fed.ClusterV1alpha1().Clusters()
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		latest, err := clusters.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if slices.Equal(want, latest.Status.RemedyActions) {
			return nil
		}
		latest.Status.RemedyActions = want
		_, err = clusters.UpdateStatus(ctx, latest, metav1.UpdateOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		c.recorder.Eventf(cluster, corev1.EventTypeWarning, ReasonWriteErr, "writing the remedy actions %v: %v", want, err)
		return err
	}
	if len(want) == 0 {
		c.recorder.Eventf(cluster, corev1.EventTypeNormal, ReasonActions, "no remedy action: no Remedy matches the cluster, or its author may not write it")
	} else {
		c.recorder.Eventf(cluster, corev1.EventTypeNormal, ReasonActions, "remedy actions now %s, by Remedy %s", strings.Join(want, ","), strings.Join(by, ", "))
	}
	return done
}

// Matches tells whether a Remedy looks at a cluster and one of its decision matches holds
// of the cluster's conditions (or it has none). A cluster without a condition of a match's
// type matches neither Equal nor NotEqual.
func Matches(spec *clusterv1alpha1.RemedySpec, cluster *clusterv1alpha1.Cluster) bool {
	if spec.ClusterAffinity != nil && !slices.Contains(spec.ClusterAffinity.ClusterNames, cluster.Name) {
		return false
	}
	if len(spec.DecisionMatches) == 0 {
		return true
	}
	for _, m := range spec.DecisionMatches {
		r := m.ClusterConditionMatch
		if r == nil {
			continue
		}
		cond := meta.FindStatusCondition(cluster.Status.Conditions, r.ConditionType)
		if cond == nil {
			continue
		}
		switch equal := string(cond.Status) == r.ConditionStatus; r.Operator {
		case clusterv1alpha1.ClusterConditionEqual:
			if equal {
				return true
			}
		case clusterv1alpha1.ClusterConditionNotEqual:
			if !equal {
				return true
			}
		}
	}
	return false
}
