package badger

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/apitesting"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/apis/example"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
	storagetesting "k8s.io/apiserver/pkg/storage/testing"
)

func openPodStore(t *testing.T, dir string, opts ...Option) (*DB, *Store) {
	t.Helper()
	db := openTestDB(t, dir, opts...)
	s, err := db.NewStore(podConfig(setupOptions{codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}))
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

func createPod(t *testing.T, s storage.Interface, ns, name string) *example.Pod {
	t.Helper()
	out := &example.Pod{}
	in := &example.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := s.Create(context.Background(), "/pods/"+ns+"/"+name, in, out, 0); err != nil {
		t.Fatalf("create %s/%s: %v", ns, name, err)
	}
	return out
}

func labelPod(t *testing.T, s storage.Interface, ns, name, value string) *example.Pod {
	t.Helper()
	out := &example.Pod{}
	err := s.GuaranteedUpdate(context.Background(), "/pods/"+ns+"/"+name, out, true, nil,
		storage.SimpleUpdate(func(obj runtime.Object) (runtime.Object, error) {
			pod := obj.(*example.Pod)
			pod.Namespace, pod.Name = ns, name
			pod.Labels = map[string]string{"v": value}
			return pod, nil
		}), nil)
	if err != nil {
		t.Fatalf("update %s/%s: %v", ns, name, err)
	}
	return out
}

func deletePod(t *testing.T, s storage.Interface, ns, name string) *example.Pod {
	t.Helper()
	out := &example.Pod{}
	if err := s.Delete(context.Background(), "/pods/"+ns+"/"+name, out, nil, storage.ValidateAllObjectFunc, nil, storage.DeleteOptions{}); err != nil {
		t.Fatalf("delete %s/%s: %v", ns, name, err)
	}
	return out
}

func TestRestartKeepsObjectsRevisionsAndHistory(t *testing.T) {
	dir := t.TempDir()
	db, s := openPodStore(t, dir)
	a := createPod(t, s, "ns", "a")
	since := a.ResourceVersion
	b := createPod(t, s, "ns", "b")
	a2 := labelPod(t, s, "ns", "a", "2")
	bDeleted := deletePod(t, s, "ns", "b")
	last := db.Revision()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, s = openPodStore(t, dir)
	if db.Revision() != last {
		t.Fatalf("revision after restart = %d, want %d", db.Revision(), last)
	}
	got := &example.Pod{}
	if err := s.Get(context.Background(), "/pods/ns/a", storage.GetOptions{}, got); err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != a2.ResourceVersion || got.Labels["v"] != "2" {
		t.Fatalf("after restart got %s %v, want %s", got.ResourceVersion, got.Labels, a2.ResourceVersion)
	}

	// A watch from before the restart replays exactly the missed events.
	w, err := s.Watch(context.Background(), "/pods/ns", storage.ListOptions{ResourceVersion: since, Predicate: storage.Everything, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	c := createPod(t, s, "ns", "c")
	if want := fmt.Sprint(last + 1); c.ResourceVersion != want {
		t.Errorf("first write after restart got resourceVersion %s, want %s", c.ResourceVersion, want)
	}
	storagetesting.TestCheckResultsInStrictOrder(t, w, []watch.Event{
		{Type: watch.Added, Object: b},
		{Type: watch.Modified, Object: a2},
		{Type: watch.Deleted, Object: bDeleted},
		{Type: watch.Added, Object: c},
	})
	storagetesting.TestCheckNoMoreResultsWithIgnoreFunc(t, w, nil)

	// Lists at an exact past revision still work after the restart.
	list := &example.PodList{}
	if err := s.GetList(context.Background(), "/pods/", storage.ListOptions{ResourceVersion: since, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Predicate: storage.Everything, Recursive: true}, list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "a" || list.ResourceVersion != since {
		t.Fatalf("list at %s = %v (rv %s)", since, list.Items, list.ResourceVersion)
	}
}

// TestKill9KeepsCommittedWrites writes from a child process that kills
// itself with SIGKILL, then reopens the directory.
func TestKill9KeepsCommittedWrites(t *testing.T) {
	if dir := os.Getenv("BADGER_STORAGE_KILL9_DIR"); dir != "" {
		kill9Child(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9KeepsCommittedWrites$")
	cmd.Env = append(os.Environ(), "BADGER_STORAGE_KILL9_DIR="+dir)
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if err == nil || !asExit(err, &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child should die of SIGKILL, got %v; output:\n%s", err, out)
	}
	rvs := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "pod" {
			rvs[f[1]] = f[2]
		}
	}
	if len(rvs) != 20 {
		t.Fatalf("child reported %d pods, want 20; output:\n%s", len(rvs), out)
	}
	db, s := openPodStore(t, dir)
	var newest string
	for name, rv := range rvs {
		got := &example.Pod{}
		if err := s.Get(context.Background(), "/pods/ns/"+name, storage.GetOptions{}, got); err != nil {
			t.Fatalf("%s lost after kill -9: %v", name, err)
		}
		if got.ResourceVersion != rv {
			t.Errorf("%s: resourceVersion %s after kill -9, want %s", name, got.ResourceVersion, rv)
		}
		if len(rv) > len(newest) || (len(rv) == len(newest) && rv > newest) {
			newest = rv
		}
	}
	if fmt.Sprint(db.Revision()) != newest {
		t.Errorf("revision after kill -9 = %d, want %s", db.Revision(), newest)
	}
	next := createPod(t, s, "ns", "after")
	if next.ResourceVersion <= newest && len(next.ResourceVersion) <= len(newest) {
		t.Errorf("revision did not continue: %s after %s", next.ResourceVersion, newest)
	}
}

func asExit(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*target = e
	return ok
}

func kill9Child(t *testing.T, dir string) {
	db, err := Open(dir, WithBadgerOptions(smallBadger), WithCompactionInterval(0), WithValueLogGCInterval(0))
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.NewStore(podConfig(setupOptions{codec: apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion)}))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("p%02d", i)
		pod := createPod(t, s, "ns", name)
		fmt.Printf("pod %s %s\n", name, pod.ResourceVersion)
	}
	_ = os.Stdout.Sync()
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	time.Sleep(time.Minute)
}

func TestCompactionExpiresOldRevisions(t *testing.T) {
	dir := t.TempDir()
	db, s := openPodStore(t, dir)
	old := createPod(t, s, "ns", "a")
	labelPod(t, s, "ns", "a", "1")
	kept := labelPod(t, s, "ns", "a", "2")
	labelPod(t, s, "ns", "a", "3")

	rev, _ := s.Versioner().ParseResourceVersion(kept.ResourceVersion)
	if _, err := db.Compact(context.Background(), int64(rev)); err != nil {
		t.Fatal(err)
	}
	check := func(s *Store) {
		t.Helper()
		w, err := s.Watch(context.Background(), "/pods/ns/a", storage.ListOptions{ResourceVersion: old.ResourceVersion, Predicate: storage.Everything})
		if err != nil {
			t.Fatal(err)
		}
		ev := <-w.ResultChan()
		status, ok := ev.Object.(*metav1.Status)
		if ev.Type != watch.Error || !ok || status.Code != 410 || status.Reason != metav1.StatusReasonExpired {
			t.Errorf("watch from compacted revision: got %v %#v, want 410 Expired", ev.Type, ev.Object)
		}
		w.Stop()
		err = s.GetList(context.Background(), "/pods/", storage.ListOptions{ResourceVersion: old.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Predicate: storage.Everything, Recursive: true}, &example.PodList{})
		if !apierrors.IsResourceExpired(err) {
			t.Errorf("list at compacted revision: got %v, want 410 Expired", err)
		}
		list := &example.PodList{}
		err = s.GetList(context.Background(), "/pods/", storage.ListOptions{ResourceVersion: kept.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Predicate: storage.Everything, Recursive: true}, list)
		if err != nil || len(list.Items) != 1 || list.Items[0].Labels["v"] != "2" {
			t.Errorf("list at the compaction revision: %v %v", err, list.Items)
		}
		if s.CompactRevision() != int64(rev) {
			t.Errorf("CompactRevision() = %d, want %d", s.CompactRevision(), rev)
		}
	}
	check(s)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, s = openPodStore(t, dir)
	check(s)
}

func TestCompactorRunsPeriodicallyAndStops(t *testing.T) {
	db, s := openPodStore(t, "", WithCompactionInterval(20*time.Millisecond))
	first := createPod(t, s, "ns", "a")
	labelPod(t, s, "ns", "a", "1")
	rv, _ := s.Versioner().ParseResourceVersion(first.ResourceVersion)
	deadline := time.Now().Add(10 * time.Second)
	for db.CompactedRevision() < int64(rv) {
		if time.Now().After(deadline) {
			t.Fatalf("compactor did not run: compacted revision %d", db.CompactedRevision())
		}
		time.Sleep(10 * time.Millisecond)
	}
	done := make(chan error)
	go func() { done <- db.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not stop the compactor")
	}
}

func TestValueLogGC(t *testing.T) {
	db, s := openPodStore(t, "", WithValueLogGCInterval(10*time.Millisecond))
	big := strings.Repeat("x", 32<<10)
	for round := 0; round < 5; round++ {
		for i := 0; i < 40; i++ {
			name := fmt.Sprintf("p%d", i)
			labelPod(t, s, "ns", name, big+fmt.Sprint(round))
			if round%2 == 1 {
				deletePod(t, s, "ns", name)
			}
		}
	}
	if _, err := db.Compact(context.Background(), db.Revision()); err != nil {
		t.Fatal(err)
	}
	if err := db.RunValueLogGC(); err != nil {
		t.Fatalf("RunValueLogGC: %v", err)
	}
	time.Sleep(50 * time.Millisecond) // let the background GC run too
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.RunValueLogGC(); err == nil {
		t.Error("RunValueLogGC on a closed database should fail")
	}
}
