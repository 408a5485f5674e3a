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

// Package clusterconditions queues Clusters for the controllers that act on their status
// conditions (clustertaint, remedy): a Cluster when what it reads of one changed, every
// Cluster when one of the controller's own objects did.
package clusterconditions

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	clusterinformers "github.com/fedhq/fed/apis/generated/informers/externalversions/cluster/v1alpha1"
	"github.com/fedhq/fed/controllers/internal/reconciler"
)

// Statuses are a Cluster's conditions by type, without their times: a probe that rewrites
// the same condition changes nothing a policy reads.
func Statuses(c *clusterv1alpha1.Cluster) map[string]metav1.ConditionStatus {
	out := make(map[string]metav1.ConditionStatus, len(c.Status.Conditions))
	for _, cond := range c.Status.Conditions {
		out[cond.Type] = cond.Status
	}
	return out
}

// Watch queues, by name, each Cluster added and each whose condition statuses changed or
// of which also says it changed (nil: only the conditions); and every Cluster on each
// event of policies, the informer of the controller's own kind.
func Watch(queue workqueue.TypedInterface[string], clusters clusterinformers.ClusterInformer, policies cache.SharedIndexInformer,
	also func(old, obj *clusterv1alpha1.Cluster) bool) error {
	enqueue := reconciler.EnqueueKey(queue)
	if _, err := clusters.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue,
		UpdateFunc: func(old, obj any) {
			o, n := old.(*clusterv1alpha1.Cluster), obj.(*clusterv1alpha1.Cluster)
			if !apiequality.Semantic.DeepEqual(Statuses(o), Statuses(n)) || also != nil && also(o, n) {
				enqueue(obj)
			}
		},
	}); err != nil {
		return err
	}
	lister := clusters.Lister()
	all := func(any) {
		cls, err := lister.List(labels.Everything())
		if err != nil {
			return
		}
		for _, cl := range cls {
			queue.Add(cl.Name)
		}
	}
	_, err := policies.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: all, UpdateFunc: func(_, obj any) { all(obj) }, DeleteFunc: all,
	})
	return err
}
