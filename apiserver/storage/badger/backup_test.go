package badger

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/apis/example"
	"k8s.io/apiserver/pkg/storage"
)

// TestBackupRestore backs up a stopped database and restores it.
func TestBackupRestore(t *testing.T) {
	dir := t.TempDir()
	db, s := openPodStore(t, dir)
	a := createPod(t, s, "ns", "a")
	createPod(t, s, "ns", "b")
	a2 := labelPod(t, s, "ns", "a", "2")
	deletePod(t, s, "ns", "b")
	last := db.Revision()

	// Badger lets one process open a directory: the backup of a database open in a process
	// that serves no backups is refused, with what to do.
	var buf bytes.Buffer
	if _, err := Backup(dir, &buf); err == nil || !strings.Contains(err.Error(), "stop that process first") {
		t.Fatalf("backup of an open database: %v, want an error saying to stop the process", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// A stopped directory, with the socket of a server killed before it could remove it:
	// backup opens the directory itself.
	leaveStaleSocket(t, dir)
	rev, err := Backup(dir, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if rev != last {
		t.Errorf("backup at revision %d, want %d", rev, last)
	}

	// A directory that holds something is left alone.
	busy := t.TempDir()
	if err := os.WriteFile(filepath.Join(busy, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(busy, bytes.NewReader(buf.Bytes())); err == nil {
		t.Error("restore into a directory that holds a file succeeded")
	}
	if data, _ := os.ReadFile(filepath.Join(busy, "keep")); string(data) != "x" {
		t.Error("restore into a busy directory changed it")
	}

	restored := filepath.Join(t.TempDir(), "data")
	if rev, err := Restore(restored, bytes.NewReader(buf.Bytes())); err != nil || rev != last {
		t.Fatalf("restore: revision %d, %v; want %d", rev, err, last)
	}
	db, s = openPodStore(t, restored)
	defer db.Close()
	got := &example.Pod{}
	if err := s.Get(context.Background(), "/pods/ns/a", storage.GetOptions{}, got); err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != a2.ResourceVersion || got.Labels["v"] != "2" {
		t.Errorf("restored a: resourceVersion %s labels %v, want %s and v=2", got.ResourceVersion, got.Labels, a2.ResourceVersion)
	}
	if err := s.Get(context.Background(), "/pods/ns/b", storage.GetOptions{}, &example.Pod{}); !storage.IsNotFound(err) {
		t.Errorf("deleted b after restore: %v, want not found", err)
	}
	// The history before the backup is gone: a list at an older revision is refused.
	err = s.GetList(context.Background(), "/pods/", storage.ListOptions{ResourceVersion: a.ResourceVersion,
		ResourceVersionMatch: metav1.ResourceVersionMatchExact, Predicate: storage.Everything, Recursive: true}, &example.PodList{})
	if !apierrors.IsResourceExpired(err) {
		t.Errorf("list at %s after restore: %v, want 410 (too old)", a.ResourceVersion, err)
	}
	// Writes go on after the backup's revision (and the compaction recorded after it).
	c := createPod(t, s, "ns", "c")
	if want := fmt.Sprint(last + 2); c.ResourceVersion != want {
		t.Errorf("first write after restore: resourceVersion %s, want %s", c.ResourceVersion, want)
	}
}

func TestBackupOfNoDatabase(t *testing.T) {
	dir := t.TempDir()
	if _, err := Backup(dir, io.Discard); err == nil || !strings.Contains(err.Error(), "no database in "+dir) {
		t.Errorf("backup of an empty directory: %v, want no database in %s", err, dir)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("backup of an empty directory wrote %v in it", entries)
	}
}

// leaveStaleSocket leaves in dir the backup socket of a process that is gone.
func leaveStaleSocket(t *testing.T, dir string) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(dir, BackupSocket))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
}
