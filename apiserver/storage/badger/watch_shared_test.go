package badger

import (
	"testing"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"
)

// An event several watchers have is decoded once: each watcher gets an object of its own,
// equal to what was written, which it may change without the others seeing it; a watcher
// with a selector still gets the replaced object, and a watcher through another store of
// the same database decodes with its own codec.
func TestWatchersShareDecodes(t *testing.T) {
	ctx, s, db := testSetup(t)
	other, err := db.NewStore(podConfig(setupOptions{codec: s.codec, transformer: s.getTransformer()}))
	if err != nil {
		t.Fatal(err)
	}
	watchOf := func(st *Store, sel labels.Selector) watch.Interface {
		t.Helper()
		pred := storage.Everything
		if sel != nil {
			pred = storage.SelectionPredicate{Label: sel, Field: storage.Everything.Field, GetAttrs: storage.DefaultNamespaceScopedAttr}
		}
		w, err := st.Watch(ctx, "/pods/ns", storage.ListOptions{SendInitialEvents: new(bool), Predicate: pred, Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		return w
	}
	all1, all2 := watchOf(s, nil), watchOf(s, nil)
	web := watchOf(s, labels.SelectorFromSet(labels.Set{"app": "web"}))
	viaOther := watchOf(other, nil)
	next := func(w watch.Interface, want watch.EventType) *example.Pod {
		t.Helper()
		select {
		case ev := <-w.ResultChan():
			if ev.Type != want {
				t.Fatalf("got a %s event (%#v), want %s", ev.Type, ev.Object, want)
			}
			return ev.Object.(*example.Pod)
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event", want)
			return nil
		}
	}

	created := &example.Pod{}
	p := benchPod("ns", 1)
	p.Labels = map[string]string{"app": "web"}
	if err := s.Create(ctx, benchKey(p), p, created, 0); err != nil {
		t.Fatal(err)
	}
	got := []*example.Pod{next(all1, watch.Added), next(all2, watch.Added), next(web, watch.Added), next(viaOther, watch.Added)}
	for i, g := range got {
		if !apiequality.Semantic.DeepEqual(g, created) {
			t.Errorf("watcher %d got %#v, want %#v", i, g, created)
		}
		for j := range i {
			if g == got[j] {
				t.Errorf("watchers %d and %d got the same object", j, i)
			}
		}
	}
	// One watcher's change of its object is its own.
	got[0].Labels["app"] = "changed"
	if got[1].Labels["app"] != "web" || got[2].Labels["app"] != "web" {
		t.Errorf("a watcher's change reached another's object: %v, %v", got[1].Labels, got[2].Labels)
	}

	// Out of the selector: the selecting watcher is told with the object it had.
	updated := &example.Pod{}
	if err := s.GuaranteedUpdate(ctx, benchKey(p), updated, false, nil, storage.SimpleUpdate(func(in runtime.Object) (runtime.Object, error) {
		out := in.(*example.Pod).DeepCopy()
		out.Labels = map[string]string{"app": "other"}
		return out, nil
	}), nil); err != nil {
		t.Fatal(err)
	}
	for _, w := range []watch.Interface{all1, all2, viaOther} {
		if g := next(w, watch.Modified); g.Labels["app"] != "other" || g.ResourceVersion != updated.ResourceVersion {
			t.Errorf("modified: labels %v at %s, want app=other at %s", g.Labels, g.ResourceVersion, updated.ResourceVersion)
		}
	}
	if g := next(web, watch.Deleted); g.Labels["app"] != "web" {
		t.Errorf("the selecting watcher's deletion carries labels %v, want app=web", g.Labels)
	}

	if err := s.Delete(ctx, benchKey(p), &example.Pod{}, nil, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []watch.Interface{all1, all2, viaOther} {
		if g := next(w, watch.Deleted); g.Name != p.Name || g.Labels["app"] != "other" {
			t.Errorf("deleted: %s with labels %v", g.Name, g.Labels)
		}
	}
	if acc, _ := meta.Accessor(got[1]); acc.GetName() != p.Name {
		t.Errorf("a watcher's earlier object changed: %s", acc.GetName())
	}
}
