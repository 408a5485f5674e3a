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

package fleet

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Quota applies the host's ResourceQuotas to what a namespace holds in fed: the object
// counts a quota of the host namespace of the same name sets (`count/<resource>.<group>`,
// and the core kinds' plain names: `configmaps`, `secrets`, `services`, `pods`, ...) limit
// the fleet's templates and fed's own objects of that resource in the fleet's namespace,
// counted in fed's storage, as they limit the host's own objects there. Compute quotas
// (requests.cpu, ...) are not applied: templates run nowhere in the fleet, and each member
// applies its own. Nor are quotas with scopes: their scopes are about pods that run. A
// create refused says so the way the host says it.
//
// With the host's size limit of an object (1.5 MiB in storage, as etcd's), a namespace's
// quota bounds what it can make fed keep, in storage and in the controllers' informers.
//
// Two creates at the same moment may both see room for one: fed counts, it does not
// reserve, so a namespace may end a few objects over its quota after a burst.
type Quota struct {
	*admission.Handler
	source atomic.Pointer[quotaSource]
}

type quotaSource struct {
	quotas corelisters.ResourceQuotaLister
	synced cache.InformerSynced
	count  Counter
}

// Counter counts the objects of a resource in a namespace of the fleet; ok is false for a
// resource it does not hold.
type Counter func(ctx context.Context, gr schema.GroupResource, namespace string) (n int64, ok bool, err error)

var _ admission.ValidationInterface = &Quota{}

// NewQuota returns the admission, which applies nothing until Start.
func NewQuota() *Quota { return &Quota{Handler: admission.NewHandler(admission.Create)} }

// Start applies the host's quotas of informer, counting with count.
func (q *Quota) Start(quotas cache.SharedIndexInformer, count Counter) {
	q.source.Store(&quotaSource{quotas: corelisters.NewResourceQuotaLister(quotas.GetIndexer()), synced: quotas.HasSynced, count: count})
}

// quotaSyncWait is how long a create waits for the host's quotas to be read at start.
const quotaSyncWait = 10 * time.Second

// Validate implements admission.ValidationInterface.
func (q *Quota) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	src := q.source.Load()
	if src == nil || a.GetNamespace() == "" || a.GetSubresource() != "" || a.GetOperation() != admission.Create {
		return nil
	}
	if !src.synced() {
		wait, cancel := context.WithTimeout(ctx, quotaSyncWait)
		ok := cache.WaitForCacheSync(wait.Done(), src.synced)
		cancel()
		if !ok {
			return apierrors.NewServiceUnavailable("fed has not read the host's ResourceQuotas yet; try again")
		}
	}
	quotas, err := src.quotas.ResourceQuotas(a.GetNamespace()).List(labels.Everything())
	if err != nil || len(quotas) == 0 {
		return err
	}
	gr := a.GetResource().GroupResource()
	names := quotaNames(gr)
	for _, rq := range quotas {
		if len(rq.Spec.Scopes) > 0 || rq.Spec.ScopeSelector != nil {
			continue
		}
		for _, name := range names {
			hard, limited := rq.Spec.Hard[name]
			if !limited {
				continue
			}
			n, ok, err := src.count(ctx, gr, a.GetNamespace())
			if err != nil || !ok {
				return err
			}
			if n+1 > hard.Value() {
				return admission.NewForbidden(a, fmt.Errorf("exceeded quota: %s, requested: %s=1, used: %s=%d, limited: %s=%s (the host's ResourceQuota %s/%s, which fed applies to the fleet's objects of the namespace)",
					rq.Name, name, name, n, name, hard.String(), rq.Namespace, rq.Name))
			}
		}
	}
	return nil
}

// coreObjectCounts are the core resources a quota also limits by their plain name.
var coreObjectCounts = map[string]corev1.ResourceName{
	"pods": corev1.ResourcePods, "services": corev1.ResourceServices, "configmaps": corev1.ResourceConfigMaps,
	"secrets": corev1.ResourceSecrets, "persistentvolumeclaims": corev1.ResourcePersistentVolumeClaims,
	"replicationcontrollers": corev1.ResourceReplicationControllers, "resourcequotas": corev1.ResourceQuotas,
}

// quotaNames are the names a quota limits the number of objects of gr by.
func quotaNames(gr schema.GroupResource) []corev1.ResourceName {
	names := []corev1.ResourceName{corev1.ResourceName("count/" + gr.String())}
	if plain, ok := coreObjectCounts[gr.Resource]; ok && gr.Group == "" {
		names = append(names, plain)
	}
	return names
}

// CountObjects counts the objects of a namespace in a store: the first of a list of one,
// and what the store says remains, or every page when it does not say.
func CountObjects(ctx context.Context, store rest.Lister, namespace string) (int64, error) {
	ctx = request.WithNamespace(ctx, namespace)
	var n int64
	opts := &metainternalversion.ListOptions{Limit: 1}
	for {
		out, err := store.List(ctx, opts)
		if err != nil {
			return 0, err
		}
		items, err := meta.ExtractList(out)
		if err != nil {
			return 0, err
		}
		n += int64(len(items))
		lm, err := meta.ListAccessor(out)
		if err != nil {
			return 0, err
		}
		if lm.GetContinue() == "" {
			return n, nil
		}
		if r := lm.GetRemainingItemCount(); r != nil {
			return n + *r, nil
		}
		opts = &metainternalversion.ListOptions{Limit: 500, Continue: lm.GetContinue()}
	}
}

// Count counts the fleet's templates of a resource in a namespace.
func (f *Fleet) Count(ctx context.Context, gr schema.GroupResource, namespace string) (int64, bool, error) {
	set := f.set.Load()
	if set == nil {
		return 0, false, nil
	}
	for gvr, s := range set.resources {
		if gvr.GroupResource() == gr && !s.r.memberView {
			n, err := CountObjects(systemContext, s.storage.main, namespace)
			return n, true, err
		}
	}
	return 0, false, nil
}
