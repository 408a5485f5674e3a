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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fedhq/fed/test/lab"
)

// TestBackupRestore backs up the lab's fed-apiserver (refused while it runs, then stopped),
// restores the backup into a new data directory and starts fed-apiserver on it: what the
// fleet held at the backup is back, what came after is not. The lab's own data directory is
// put back afterwards.
func TestBackupRestore(t *testing.T) {
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
	stop := func() {
		t.Helper()
		if err := theLab.StopProcess("fed-apiserver"); err != nil {
			t.Fatal(err)
		}
	}

	kubectl(t, fleet, "create", "configmap", "before", "-n", ns, "--from-literal=k=v")
	out, err := run("backup", "--data-dir", dataDir, "-o", backup)
	if err == nil || !strings.Contains(out, "stop it first") {
		t.Fatalf("a backup while fed-apiserver runs: %v\n%s\nwant it refused, saying to stop the server", err, out)
	}
	if _, err := os.Stat(backup); !os.IsNotExist(err) {
		t.Errorf("a refused backup left %s behind: %v", backup, err)
	}

	stop()
	out, err = run("backup", "--data-dir", dataDir, "-o", backup)
	up()
	if err != nil {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(out))
	kubectl(t, fleet, "create", "configmap", "after", "-n", ns, "--from-literal=k=v")

	restored := dataDir + ".restored"
	out, err = run("restore", "--data-dir", restored, "-f", backup)
	if err != nil {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(out))
	if out, err := run("restore", "--data-dir", restored, "-f", backup); err == nil {
		t.Errorf("a restore into a directory that holds a database succeeded:\n%s", out)
	}

	// fed-apiserver on the restored directory, then on its own again.
	original := dataDir + ".original"
	stop()
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
	waitFor(t, 30*time.Second, func() error {
		_, err := runKubectl(fleet, "get", "configmap", "before", "-n", ns)
		return err
	})
	if out, err := runKubectl(fleet, "get", "configmap", "after", "-n", ns); err == nil || !strings.Contains(err.Error(), "NotFound") {
		t.Errorf("the configmap made after the backup is in the restored fleet: %v %s", err, out)
	}
}
