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

package registrytest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage/storagebackend"

	"github.com/fedhq/fed/apiserver/scheme"
)

// errNoEtcd says that no etcd binary was found.
var errNoEtcd = errors.New("no etcd in bin/ of the module nor in PATH: run `make bin`")

// etcd is the etcd server of the test binary, started on first use.
var etcd struct {
	once    sync.Once
	cmd     *exec.Cmd
	exited  chan struct{}
	dataDir string
	url     string
	err     error
}

// RESTOptionsGetter returns storage options on the etcd of the test binary,
// under a key prefix of the test's own, with the storage codec of fed's API
// groups. Under -short it skips the test when etcd is not installed; else it
// fails it. Call StopEtcd from TestMain after the tests.
func RESTOptionsGetter(t *testing.T) generic.RESTOptionsGetter {
	t.Helper()
	etcd.once.Do(startEtcd)
	if etcd.err != nil {
		if testing.Short() && errors.Is(etcd.err, errNoEtcd) {
			t.Skip(etcd.err)
		}
		t.Fatal(etcd.err)
	}
	config := storagebackend.NewDefaultConfig("/"+strconv.FormatInt(time.Now().UnixNano(), 36), scheme.Codecs.LegacyCodec(scheme.StorageVersions...))
	config.EncodeVersioner = scheme.StorageVersions
	config.CompactionInterval = 0
	config.Transport.ServerList = []string{etcd.url}
	return optionsGetter{config: config}
}

type optionsGetter struct {
	config *storagebackend.Config
}

func (g optionsGetter) GetRESTOptions(resource schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{
		StorageConfig:           g.config.ForResource(resource),
		Decorator:               generic.UndecoratedStorage,
		DeleteCollectionWorkers: 1,
		ResourcePrefix:          resource.Group + "/" + resource.Resource,
	}, nil
}

// StopEtcd stops the etcd RESTOptionsGetter started, if it did, and removes
// its data.
func StopEtcd() {
	if etcd.cmd == nil {
		return
	}
	_ = etcd.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-etcd.exited:
	case <-time.After(10 * time.Second):
		_ = etcd.cmd.Process.Kill()
		<-etcd.exited
	}
	_ = os.RemoveAll(etcd.dataDir)
}

func startEtcd() {
	binary, err := findEtcd()
	if err != nil {
		etcd.err = err
		return
	}
	if etcd.dataDir, etcd.err = os.MkdirTemp("", "fed-registry-etcd-"); etcd.err != nil {
		return
	}
	clientURL, peerURL := "http://"+freeAddress(), "http://"+freeAddress()
	var output bytes.Buffer
	cmd := exec.Command(binary, "--name=test", "--data-dir="+etcd.dataDir,
		"--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=test="+peerURL, "--logger=zap", "--log-level=warn")
	cmd.Stdout, cmd.Stderr = &output, &output
	killWithParent(cmd)
	if etcd.err = cmd.Start(); etcd.err != nil {
		return
	}
	etcd.cmd, etcd.exited, etcd.url = cmd, make(chan struct{}), clientURL
	go func() { _ = cmd.Wait(); close(etcd.exited) }()
	if err := waitHealthy(clientURL); err != nil {
		StopEtcd()
		etcd.err = fmt.Errorf("etcd %s: %w; its output:\n%s", binary, err, output.String())
	}
}

// findEtcd looks for bin/etcd in the module, where `make bin` puts it,
// then in PATH.
func findEtcd() (string, error) {
	dir, err := os.Getwd()
	for err == nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			if p, lookErr := exec.LookPath(filepath.Join(dir, "bin", "etcd")); lookErr == nil {
				return p, nil
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if p, err := exec.LookPath("etcd"); err == nil {
		return p, nil
	}
	return "", errNoEtcd
}

// freeAddress returns a 127.0.0.1 address whose port was free a moment ago.
func freeAddress() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}

func waitHealthy(url string) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-etcd.exited:
			return errors.New("exited")
		default:
		}
		if resp, err := client.Get(url + "/health"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.New("not healthy after 30s")
}
