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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

func TestQuota(t *testing.T) {
	quota := func(name string, hard map[corev1.ResourceName]string, scoped bool) *corev1.ResourceQuota {
		q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{}}}
		for k, v := range hard {
			q.Spec.Hard[k] = apiresource.MustParse(v)
		}
		if scoped {
			q.Spec.Scopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}
		}
		return q
	}
	client := fake.NewClientset(
		quota("objects", map[corev1.ResourceName]string{"configmaps": "3", "count/deployments.apps": "2", "requests.cpu": "1"}, false),
		quota("scoped", map[corev1.ResourceName]string{"count/secrets": "0"}, true),
	)
	factory := informers.NewSharedInformerFactory(client, 0)
	informer := factory.Core().V1().ResourceQuotas().Informer()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	counts := map[schema.GroupResource]int64{{Resource: "configmaps"}: 2, {Group: "apps", Resource: "deployments"}: 2, {Resource: "secrets"}: 9}
	q := NewQuota()
	q.Start(informer, func(_ context.Context, gr schema.GroupResource, namespace string) (int64, bool, error) {
		if namespace != "team" {
			t.Errorf("counted namespace %s", namespace)
		}
		n, ok := counts[gr]
		return n, ok, nil
	})
	create := func(gr schema.GroupResource, namespace, sub string) error {
		a := admission.NewAttributesRecord(nil, nil, schema.GroupVersionKind{}, namespace, "x", gr.WithVersion("v1"), sub, admission.Create, nil, false, nil)
		return q.Validate(context.Background(), a, nil)
	}
	cases := []struct {
		gr        schema.GroupResource
		namespace string
		sub       string
		wantErr   string
	}{
		{gr: schema.GroupResource{Resource: "configmaps"}, namespace: "team"}, // 2 of 3
		{gr: schema.GroupResource{Group: "apps", Resource: "deployments"}, namespace: "team", wantErr: "exceeded quota: objects, requested: count/deployments.apps=1, used: count/deployments.apps=2, limited: count/deployments.apps=2"},
		{gr: schema.GroupResource{Group: "apps", Resource: "deployments"}, namespace: "other"},              // no quota there
		{gr: schema.GroupResource{Group: "apps", Resource: "deployments"}, namespace: "team", sub: "scale"}, // not a new object
		{gr: schema.GroupResource{Resource: "secrets"}, namespace: "team"},                                  // only a scoped quota
		{gr: schema.GroupResource{Resource: "services"}, namespace: "team"},                                 // not limited
	}
	for _, c := range cases {
		err := create(c.gr, c.namespace, c.sub)
		if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("create %s in %s (%q): %v, want %q", c.gr, c.namespace, c.sub, err, c.wantErr)
		}
	}
	counts[schema.GroupResource{Resource: "configmaps"}] = 3
	if err := create(schema.GroupResource{Resource: "configmaps"}, "team", ""); err == nil || !strings.Contains(err.Error(), "used: configmaps=3, limited: configmaps=3") {
		t.Errorf("a fourth ConfigMap: %v, want refused by the plain name's limit", err)
	}
}
