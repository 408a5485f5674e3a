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

package clusterclient

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	clusterlisters "github.com/fedhq/fed/apis/generated/listers/cluster/v1alpha1"
)

// TestRenewedTokenReachesBuiltClients: a client built from the Cache before the Secret's
// token changed sends the new token from then on, as fed's long-lived informers must.
func TestRenewedTokenReachesBuiltClients(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	clusters := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	secrets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := clusters.Add(&clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "m1", ResourceVersion: "1"},
		Spec: clusterv1alpha1.ClusterSpec{APIEndpoint: srv.URL,
			SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: "fed-system", Name: "m1"}},
	}); err != nil {
		t.Fatal(err)
	}
	secret := func(rv, token string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "fed-system", Name: "m1", ResourceVersion: rv},
			Data: map[string][]byte{"token": []byte(token), "caBundle": ca}}
	}
	if err := secrets.Add(secret("1", "first")); err != nil {
		t.Fatal(err)
	}
	c := New(clusterlisters.NewClusterLister(clusters), corelisters.NewSecretLister(secrets))
	cfg, err := c.Config("m1")
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func() {
		t.Helper()
		resp, err := client.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	get()
	if err := secrets.Update(secret("2", "renewed")); err != nil {
		t.Fatal(err)
	}
	get()
	// A Secret gone keeps the last token: the Cluster is about to go, or its Secret to be
	// written again.
	if err := secrets.Delete(secret("2", "renewed")); err != nil {
		t.Fatal(err)
	}
	get()
	mu.Lock()
	defer mu.Unlock()
	want := []string{"Bearer first", "Bearer renewed", "Bearer renewed"}
	if !slices.Equal(seen, want) {
		t.Errorf("Authorization headers %q, want %q", seen, want)
	}
}
