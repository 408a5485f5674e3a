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

package members

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	watchapi "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubeinformers "k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/fedhq/fed/apis/cluster/v1alpha1"
	"github.com/fedhq/fed/apis/generated/clientset/versioned/fake"
	fedinformers "github.com/fedhq/fed/apis/generated/informers/externalversions"
	"github.com/fedhq/fed/clusterclient"
)

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 5s: %s", what)
		}
	}
}

// TestMembersFollowTheirClusters: a member's client is kept while its Cluster's endpoint
// and credentials stay, built again when they change, and dropped with the Cluster; a
// Cluster not in the fleet is NotFound.
func TestMembersFollowTheirClusters(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "m1", ResourceVersion: "1"},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push, APIEndpoint: "https://127.0.0.1:1",
			SecretRef: &clusterv1alpha1.LocalSecretReference{Namespace: clusterv1alpha1.FedNamespace, Name: "m1"}}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: clusterv1alpha1.FedNamespace, Name: "m1", ResourceVersion: "1"},
		Data: map[string][]byte{clusterv1alpha1.SecretTokenKey: []byte("t")}}
	fed := fake.NewSimpleClientset(cluster)
	host := kubefake.NewSimpleClientset(secret)
	fedFactory := fedinformers.NewSharedInformerFactory(fed, 0)
	hostFactory := kubeinformers.NewSharedInformerFactory(host, 0)
	clusters := fedFactory.Cluster().V1alpha1().Clusters()
	configs := clusterclient.New(clusters.Lister(), hostFactory.Core().V1().Secrets().Lister())
	m, err := New(ctx, configs, clusters)
	if err != nil {
		t.Fatal(err)
	}
	fedFactory.Start(ctx.Done())
	hostFactory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), clusters.Informer().HasSynced, hostFactory.Core().V1().Secrets().Informer().HasSynced) {
		t.Fatal("not synced")
	}

	first, err := m.Get("m1")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := m.Get("m1"); again != first {
		t.Errorf("the same Cluster gave another member")
	}
	moved := cluster.DeepCopy()
	moved.Spec.APIEndpoint, moved.ResourceVersion = "https://127.0.0.1:2", "2"
	if _, err := fed.ClusterV1alpha1().Clusters().Update(ctx, moved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "a new member for the new endpoint", func() bool {
		mb, err := m.Get("m1")
		return err == nil && mb != first
	})
	if first.ctx.Err() == nil {
		t.Errorf("the member of the old endpoint still runs")
	}
	if err := fed.ClusterV1alpha1().Clusters().Delete(ctx, "m1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the member forgotten", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.members["m1"] == nil
	})
	if _, err := m.Get("m1"); err == nil {
		t.Errorf("a Cluster no longer in the fleet: no error")
	}
}

// TestWatched: what fed knows of a member's objects is nothing until the informer has
// listed, then the informer's, or what fed wrote until the informer has it; each change is
// told.
func TestWatched(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cm := func(name, rv string, l map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "ns", "name": name, "resourceVersion": rv}, "data": map[string]any{"k": rv}}}
		u.SetLabels(l)
		return u
	}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ConfigMapList"},
		cm("a", "1", map[string]string{"app": "x"}), cm("b", "1", nil))
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	told := make(chan string, 10)
	w := watch(factory.ForResource(gvr).Informer(), func(o metav1.Object, deleted bool) { told <- o.GetName() })
	if w.Get("ns/a") != nil || w.Synced() {
		t.Errorf("before the informer listed: an object, or synced")
	}
	factory.Start(ctx.Done())
	waitUntil(t, "synced", w.Synced)
	if got := w.Get("ns/a"); got == nil || got.GetName() != "a" || got.Object["data"].(map[string]any)["k"] != "1" {
		t.Errorf("Get: %v", got)
	}
	if p := w.Peek("ns/b"); p == nil || p.GetName() != "b" {
		t.Errorf("Peek: %v", p)
	}
	if got := w.List("ns", labels.SelectorFromSet(labels.Set{"app": "x"})); len(got) != 1 || got[0].GetName() != "a" {
		t.Errorf("List by label: %v", got)
	}
	w.Wrote(cm("a", "5", map[string]string{"app": "x"}))
	if got := w.Get("ns/a"); got == nil || got.GetResourceVersion() != "5" {
		t.Errorf("after fed wrote it: %v, want the written version", got)
	}
	for range 2 {
		select {
		case <-told:
		case <-time.After(5 * time.Second):
			t.Fatal("the informer's adds were not told")
		}
	}
}

// TestWatchedCopyNeverSeen: a copy fed wrote that the informer never shows (the object went
// before a relist: its CRD deleted and made again while the informer's watch was down) is
// asked of the member after settle. Gone there, it is no longer served and its deletion is
// told, so that execution applies it again; still there, it is kept (the informer is only
// behind), and so is one younger than settle.
func TestWatchedCopyNeverSeen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cm := func(name, uid, rv string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "ns", "name": name, "uid": uid, "resourceVersion": rv}}}
	}
	// The member holds "behind", and not "gone"; the informer's watch shows nothing.
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ConfigMapList"},
		cm("behind", "u1", "8"))
	silent := watchapi.NewFake()
	defer silent.Stop()
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{
		ListFunc: func(metav1.ListOptions) (runtime.Object, error) {
			return &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMapList",
				"metadata": map[string]any{"resourceVersion": "1"}}}, nil
		},
		WatchFunc: func(o metav1.ListOptions) (watchapi.Interface, error) {
			if o.SendInitialEvents != nil && *o.SendInitialEvents {
				return nil, errors.New("no streaming list here: list first") // the reflector lists then
			}
			return silent, nil
		},
	}, &unstructured.Unstructured{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	type event struct {
		name    string
		deleted bool
	}
	told := make(chan event, 10)
	w := watch(inf, func(o metav1.Object, deleted bool) { told <- event{o.GetName(), deleted} })
	w.resource = client.Resource(gvr)
	go inf.Run(ctx.Done())
	waitUntil(t, "synced", w.Synced)

	w.Wrote(cm("gone", "u2", "7"))
	w.Wrote(cm("behind", "u1", "8"))
	w.recheck(ctx, time.Now())
	for range 2 { // client-go's mutation cache with IncludeAdds served such a copy once only
		for _, name := range []string{"gone", "behind"} {
			if w.Get("ns/"+name) == nil {
				t.Errorf("%s, written just now: not served", name)
			}
		}
	}
	w.recheck(ctx, time.Now().Add(settle))
	if got := w.Get("ns/gone"); got != nil {
		t.Errorf("a copy gone from the member: still served (%s)", got.GetResourceVersion())
	}
	select {
	case e := <-told:
		if e != (event{"gone", true}) {
			t.Errorf("told %+v, want gone's deletion", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the copy gone from the member: its deletion not told")
	}
	if w.Get("ns/behind") == nil {
		t.Errorf("a copy the member has: no longer served")
	}
	select {
	case e := <-told:
		t.Errorf("told %+v, want nothing more", e)
	default:
	}
	w.Wrote(cm("gone", "u3", "9"))
	if got := w.Get("ns/gone"); got == nil || got.GetResourceVersion() != "9" {
		t.Errorf("written again after it went: %v, want the new copy", got)
	}
}
