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
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/admission"
)

// FederatedQuota refuses an update of a template whose replicas, where they already run,
// would request more than the namespace's FederatedResourceQuotas leave (the controllers'
// check, set by Start): the scheduler admits placements, and a workload that stays where
// it is but asks more of each replica is admitted here, as the host admits a pod against
// its ResourceQuota. Until Start, and for a create (not placed yet), it admits everything.
type FederatedQuota struct {
	*admission.Handler
	check atomic.Pointer[func(*unstructured.Unstructured) error]
}

var _ admission.ValidationInterface = &FederatedQuota{}

// NewFederatedQuota returns the admission, which checks nothing until Start.
func NewFederatedQuota() *FederatedQuota {
	return &FederatedQuota{Handler: admission.NewHandler(admission.Update)}
}

// Start checks each updated template with check.
func (q *FederatedQuota) Start(check func(*unstructured.Unstructured) error) {
	if check != nil {
		q.check.Store(&check)
	}
}

// Validate implements admission.ValidationInterface.
func (q *FederatedQuota) Validate(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	check := q.check.Load()
	if check == nil || a.GetNamespace() == "" || a.GetSubresource() != "" || a.GetOperation() != admission.Update {
		return nil
	}
	u, ok := a.GetObject().(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	if err := (*check)(u); err != nil {
		return admission.NewForbidden(a, err)
	}
	return nil
}
