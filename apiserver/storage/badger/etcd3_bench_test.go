package badger

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/apitesting"
	"k8s.io/apimachinery/pkg/runtime/schema"
	examplev1 "k8s.io/apiserver/pkg/apis/example/v1"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
)

// The same benchmarks on k8s.io/apiserver's etcd3 store, against a real etcd started for
// the run (the lab's bin/etcd), so `make bench` reports Badger against etcd3 measured on
// the same machine in the same run.

func BenchmarkEtcd3Create(b *testing.B) { RunBenchmarkCreate(b, etcd3Pods) }
func BenchmarkEtcd3Get(b *testing.B)    { RunBenchmarkGet(b, etcd3Pods) }
func BenchmarkEtcd3List(b *testing.B)   { RunBenchmarkList(b, etcd3Pods) }
func BenchmarkEtcd3Watch(b *testing.B)  { RunBenchmarkWatch(b, etcd3Pods) }

var (
	etcdOnce sync.Once
	etcdURL  string
	etcdErr  error
	etcdSeq  int
	etcdMu   sync.Mutex
)

// etcd3Pods returns an etcd3 store of pods under a prefix of its own on the shared etcd.
func etcd3Pods(b *testing.B) storage.Interface {
	etcdOnce.Do(func() { etcdURL, etcdErr = startEtcd() })
	if etcdErr != nil {
		b.Fatalf("starting etcd for the etcd3 benchmarks: %v (run `make bin`)", etcdErr)
	}
	etcdMu.Lock()
	etcdSeq++
	prefix := fmt.Sprintf("/bench-%d-%d", time.Now().UnixNano(), etcdSeq)
	etcdMu.Unlock()
	cfg := storagebackend.NewDefaultConfig(prefix, apitesting.TestCodec(codecs, examplev1.SchemeGroupVersion))
	cfg.Transport.ServerList = []string{etcdURL}
	s, destroy, err := factory.Create(*cfg.ForResource(schema.GroupResource{Resource: "pods"}), newPod, newPodList, "/pods/")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(destroy)
	return s
}

// startEtcd runs etcd on free loopback ports in a temporary directory until the test
// binary exits. Like Badger's default (no sync per write), it skips fsync: both then keep
// every write across a crash of the process but not of the machine.
func startEtcd() (string, error) {
	bin, err := etcdBinary()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "fed-bench-etcd-")
	if err != nil {
		return "", err
	}
	client, peer := freeLoopbackURL(), freeLoopbackURL()
	cmd := exec.Command(bin, "--data-dir="+dir, "--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer, "--initial-cluster=default="+peer,
		"--unsafe-no-fsync", "--log-level=warn")
	cmd.SysProcAttr = pdeathsig()
	if err := cmd.Start(); err != nil {
		return "", err
	}
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", client[len("http://"):]); err == nil {
			c.Close()
			return client, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("etcd did not listen on %s", client)
}

func etcdBinary() (string, error) {
	dir, _ := os.Getwd()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		if p := filepath.Join(d, "bin", "etcd"); fileExists(p) {
			return p, nil
		}
	}
	return exec.LookPath("etcd")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func freeLoopbackURL() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}
