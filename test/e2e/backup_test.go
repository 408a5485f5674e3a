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

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fedhq/fed/test/lab"
)

// TestBackupRestore backs up the lab's running fed-apiserver while ConfigMaps are being
// created in the fleet, restores the backup into a new data directory and starts
// fed-apiserver on it: every ConfigMap of the backup's revision is back with its data, and
// none made after it. The lab's own data directory is put back afterwards.
func TestBackupRestore(t *testing.T) {
	if s := theLab.FedStorage(); s != lab.StorageBadger {
		t.Skipf("the lab's fed-apiserver stores in %s (make up FED_STORAGE=%s): fed-apiserver backup is Badger's; etcd's is etcdctl snapshot save", s, s)
	}
	root, err := lab.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fedBin := filepath.Join(root, "bin", "fed-apiserver")
	fleet := theLab.FleetKubeconfig()
	ns := testNamespace(t, theLab.Host.Kubeconfig)
	dataDir := filepath.Join(theLab.FedServer().Dir, "data")
	backup := filepath.Join(t.TempDir(), "fed.backup")
	run := func(args ...string) (string, error) {
		out, err := exec.Command(fedBin, args...).CombinedOutput()
		return string(out), err
	}
	up := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := theLab.Up(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// A directory without a database is refused, saying so.
	empty := t.TempDir()
	if out, err := run("backup", "--data-dir", empty, "-o", "-"); err == nil || !strings.Contains(out, "no database in "+empty) {
		t.Errorf("a backup of an empty directory: %v\n%s\nwant no database in %s", err, out, empty)
	}

	// The writer creates ConfigMaps one after the other until told to stop, and keeps the
	// revision of each.
	cfg, err := clientConfigFor(fleet)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	created := map[string]int64{}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(created)
	}
	stopWriter, writerDone := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stopWriter:
				writerDone <- nil
				return
			default:
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w-%d", i)}, Data: map[string]string{"i": fmt.Sprint(i)}}
			got, err := client.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{})
			if err != nil {
				writerDone <- err
				return
			}
			rev, err := strconv.ParseInt(got.ResourceVersion, 10, 64)
			if err != nil {
				writerDone <- err
				return
			}
			mu.Lock()
			created[got.Name] = rev
			mu.Unlock()
		}
	}()
	waitWrites := func(n int) {
		t.Helper()
		waitFor(t, time.Minute, func() error {
			if c := count(); c < n {
				return fmt.Errorf("%d ConfigMaps created, waiting for %d", c, n)
			}
			return nil
		})
	}
	waitWrites(10)
	out, err := run("backup", "--data-dir", dataDir, "-o", backup)
	if err != nil {
		close(stopWriter)
		t.Fatalf("backup while fed-apiserver runs: %v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(out))
	var rev int64
	if _, err := fmt.Sscanf(out, "backed up "+dataDir+" at revision %d", &rev); err != nil {
		close(stopWriter)
		t.Fatalf("no revision in %q: %v", out, err)
	}
	waitWrites(count() + 10)
	close(stopWriter)
	if err := <-writerDone; err != nil {
		t.Fatalf("writer: %v", err)
	}
	var in, after []string
	for name, r := range created {
		if r <= rev {
			in = append(in, name)
		} else {
			after = append(after, name)
		}
	}
	t.Logf("%d ConfigMaps created up to revision %d, %d after it", len(in), rev, len(after))
	if len(in) == 0 || len(after) == 0 {
		t.Fatal("want ConfigMaps created both before and after the backup's revision")
	}

	restored := dataDir + ".restored"
	out, err = run("restore", "--data-dir", restored, "-f", backup)
	if err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(out))
	if out, err := run("restore", "--data-dir", restored, "-f", backup); err == nil || !strings.Contains(out, "not empty") {
		t.Errorf("a restore into a directory that holds a database: %v\n%s\nwant it refused", err, out)
	}

	// fed-apiserver on the restored directory, then on its own again.
	original := dataDir + ".original"
	if err := theLab.StopProcess("fed-apiserver"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "backup.sock")); !os.IsNotExist(err) {
		t.Errorf("the backup socket is left after fed-apiserver stopped: %v", err)
	}
	if err := os.Rename(dataDir, original); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(restored, dataDir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := theLab.StopProcess("fed-apiserver"); err != nil {
			t.Error(err)
		}
		if err := os.RemoveAll(dataDir); err != nil {
			t.Error(err)
		}
		if err := os.Rename(original, dataDir); err != nil {
			t.Fatal(err)
		}
		up()
	})
	up()
	var list *corev1.ConfigMapList
	waitFor(t, 30*time.Second, func() error {
		list, err = client.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		return err
	})
	got := map[string]string{}
	for _, cm := range list.Items {
		got[cm.Name] = cm.Data["i"]
	}
	for _, name := range in {
		if i, ok := got[name]; !ok || "w-"+i != name {
			t.Errorf("ConfigMap %s of the backup: restored %t, data i=%q", name, ok, i)
		}
	}
	for _, name := range after {
		if _, ok := got[name]; ok {
			t.Errorf("ConfigMap %s, made after the backup's revision %d, is in the restored fleet", name, rev)
		}
	}
}
