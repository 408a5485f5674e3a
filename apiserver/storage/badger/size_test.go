package badger

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"
)

// TestObjectSizeLimit: an object over MaxObjectBytes is refused on create and on update,
// with a 413 as kube-apiserver answers etcd's refusal, and what was stored stays.
func TestObjectSizeLimit(t *testing.T) {
	ctx, store, _ := testSetup(t)
	big := func(name string, n int) *example.Pod {
		return &example.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns",
			Annotations: map[string]string{"fill": strings.Repeat("x", n)}}}
	}
	err := store.Create(ctx, "/pods/ns/huge", big("huge", MaxObjectBytes), &example.Pod{}, 0)
	if !apierrors.IsRequestEntityTooLargeError(err) || !strings.Contains(err.Error(), "over the storage limit") {
		t.Fatalf("create of an object over the limit: %v, want 413", err)
	}
	if err := store.Get(ctx, "/pods/ns/huge", storage.GetOptions{}, &example.Pod{}); !storage.IsNotFound(err) {
		t.Errorf("the refused object was stored: %v", err)
	}

	out := &example.Pod{}
	if err := store.Create(ctx, "/pods/ns/small", big("small", 1000), out, 0); err != nil {
		t.Fatal(err)
	}
	err = store.GuaranteedUpdate(ctx, "/pods/ns/small", &example.Pod{}, false, nil,
		storage.SimpleUpdate(func(obj runtime.Object) (runtime.Object, error) {
			p := obj.(*example.Pod)
			p.Annotations["fill"] = strings.Repeat("y", MaxObjectBytes)
			return p, nil
		}), nil)
	if !apierrors.IsRequestEntityTooLargeError(err) {
		t.Fatalf("update over the limit: %v, want 413", err)
	}
	got := &example.Pod{}
	if err := store.Get(context.Background(), "/pods/ns/small", storage.GetOptions{}, got); err != nil || len(got.Annotations["fill"]) != 1000 || got.ResourceVersion != out.ResourceVersion {
		t.Errorf("after the refused update: %v, rv %s (was %s), err %v", len(got.Annotations["fill"]), got.ResourceVersion, out.ResourceVersion, err)
	}
}
