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

package badger

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"
)

// TestBackupWhileWriting backs up an open database through its backup socket while a
// writer keeps creating, updating and deleting pods, and restores it: the restored
// database holds exactly the state at the backup's revision, as the open database reads it
// at that revision, and nothing newer.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, s := openPodStore(t, dir)
	// More than the socket's buffers hold, so that the server is still streaming while the
	// writes below go on.
	big := strings.Repeat("x", 2048)
	for i := range 600 {
		createBigPod(t, s, fmt.Sprintf("p%d", i), big)
	}
	stop, err := ServeBackups(db, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(filepath.Join(dir, BackupSocket)); !os.IsNotExist(err) {
			t.Errorf("the backup socket is left after stop: %v", err)
		}
	}()
	if fi, err := os.Stat(filepath.Join(dir, BackupSocket)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup socket: %v, mode %v; want 0600", err, fi.Mode())
	}

	// The writer: a new pod, an update and a delete of older ones, in turn, until the backup
	// is over. It deletes p300 to p599, then updates p0 to p299 in their place: it must not
	// run out of writes before the backup starts on a busy machine, or the reader below
	// would wait for writes that never come.
	var writes atomic.Int64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			switch {
			case i%3 == 0:
				createBigPod(t, s, fmt.Sprintf("w%d", i), big)
			case i%3 == 2 && i < 900:
				deletePod(t, s, "ns", fmt.Sprintf("p%d", 300+i/3))
			default:
				labelPod(t, s, "ns", fmt.Sprintf("p%d", (i/3)%300), fmt.Sprint(i))
			}
			writes.Add(1)
		}
	}()

	// The backup's reader waits at its first bytes until 30 more writes are committed.
	var buf bytes.Buffer
	var once sync.Once
	out := writerFunc(func(p []byte) (int, error) {
		once.Do(func() {
			deadline := time.Now().Add(time.Minute)
			for from := writes.Load(); writes.Load() < from+30 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		})
		return buf.Write(p)
	})
	before := db.Revision()
	rev, err := Backup(dir, out)
	close(done)
	<-finished
	if err != nil {
		t.Fatal(err)
	}
	if rev < before || db.Revision() <= rev {
		t.Fatalf("backup at revision %d: want one between %d (when it started) and %d (now)", rev, before, db.Revision())
	}
	t.Logf("backup of %d bytes at revision %d; newest revision %d", buf.Len(), rev, db.Revision())

	want := &example.PodList{}
	if err := s.GetList(ctx, "/pods/", storage.ListOptions{ResourceVersion: fmt.Sprint(rev), ResourceVersionMatch: metav1.ResourceVersionMatchExact,
		Predicate: storage.Everything, Recursive: true}, want); err != nil {
		t.Fatal(err)
	}

	restored := filepath.Join(t.TempDir(), "data")
	if got, err := Restore(restored, bytes.NewReader(buf.Bytes())); err != nil || got != rev {
		t.Fatalf("restore: revision %d, %v; want %d", got, err, rev)
	}
	rdb, rs := openPodStore(t, restored)
	if rdb.Revision() != rev+1 {
		t.Errorf("restored database at revision %d, want %d (the backup's and the compaction recorded after it)", rdb.Revision(), rev+1)
	}
	got := &example.PodList{}
	if err := rs.GetList(ctx, "/pods/", storage.ListOptions{Predicate: storage.Everything, Recursive: true}, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != len(want.Items) {
		t.Errorf("restored %d pods, want the %d at revision %d", len(got.Items), len(want.Items), rev)
	}
	wantByName := map[string]example.Pod{}
	for _, p := range want.Items {
		wantByName[p.Name] = p
	}
	for _, p := range got.Items {
		w, ok := wantByName[p.Name]
		switch {
		case !ok:
			t.Errorf("restored pod %s (resourceVersion %s) did not exist at revision %d", p.Name, p.ResourceVersion, rev)
		case p.ResourceVersion != w.ResourceVersion || !reflect.DeepEqual(p.Labels, w.Labels) || !reflect.DeepEqual(p.Annotations, w.Annotations):
			t.Errorf("restored pod %s: resourceVersion %s labels %v, want %s %v", p.Name, p.ResourceVersion, p.Labels, w.ResourceVersion, w.Labels)
		}
		delete(wantByName, p.Name)
	}
	for name := range wantByName {
		t.Errorf("pod %s of revision %d is not restored", name, rev)
	}
}

// TestCompactionStopsAtARunningBackup: while a backup reads its revision, compaction
// goes no further, so that Badger keeps every version the backup reads.
func TestCompactionStopsAtARunningBackup(t *testing.T) {
	ctx := context.Background()
	db, s := openPodStore(t, "")
	createPod(t, s, "ns", "a")
	rev, release, err := db.pinBackup()
	if err != nil {
		t.Fatal(err)
	}
	labelPod(t, s, "ns", "a", "1")
	labelPod(t, s, "ns", "a", "2")
	if got, err := db.Compact(ctx, db.Revision()); err != nil || got != rev {
		t.Errorf("compaction during a backup at %d: to %d, %v; want %d", rev, got, err, rev)
	}
	release()
	newest := db.Revision()
	if got, err := db.Compact(ctx, newest); err != nil || got != newest {
		t.Errorf("compaction after the backup: to %d, %v; want %d", got, err, newest)
	}
}

// TestStopEndsARunningBackup: when the server stops, a backup it is streaming to a client
// that reads nothing ends, and the database closes; the client gets an error, not a short
// backup.
func TestStopEndsARunningBackup(t *testing.T) {
	dir := t.TempDir()
	db, s := openPodStore(t, dir)
	// More than the socket's buffers hold, so that the server is blocked writing.
	big := strings.Repeat("x", 2048)
	for i := range 600 {
		createBigPod(t, s, fmt.Sprintf("p%d", i), big)
	}
	stop, err := ServeBackups(db, dir)
	if err != nil {
		t.Fatal(err)
	}
	started, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	out := writerFunc(func(p []byte) (int, error) {
		once.Do(func() {
			close(started)
			<-resume
		})
		return len(p), nil
	})
	backupErr := make(chan error, 1)
	go func() {
		_, err := Backup(dir, out)
		backupErr <- err
	}()
	<-started
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- db.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the database did not close while a backup was cut off")
	}
	close(resume)
	if err := <-backupErr; err == nil {
		t.Error("a backup cut off by the server's stop succeeded")
	} else {
		t.Log(err)
	}
}

// TestServeBackupsReplacesStaleSocket: a socket left by a server killed before it could
// remove it does not keep the next one from serving backups.
func TestServeBackupsReplacesStaleSocket(t *testing.T) {
	dir := t.TempDir()
	leaveStaleSocket(t, dir)
	db, s := openPodStore(t, dir)
	createPod(t, s, "ns", "a")
	stop, err := ServeBackups(db, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var buf bytes.Buffer
	if rev, err := Backup(dir, &buf); err != nil || rev != db.Revision() {
		t.Errorf("backup: revision %d, %v; want %d", rev, err, db.Revision())
	}
}

func createBigPod(t *testing.T, s storage.Interface, name, annotation string) {
	t.Helper()
	in := &example.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Annotations: map[string]string{"big": annotation}}}
	if err := s.Create(context.Background(), "/pods/ns/"+name, in, &example.Pod{}, 0); err != nil {
		t.Errorf("create ns/%s: %v", name, err)
	}
}
