package lab

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestReservePortsDisjoint has many callers reserve ports at once through one registry, as
// two labs starting together do, and checks no port is handed out twice, though each is
// free to bind until its process binds it.
func TestReservePortsDisjoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ports.json")
	const callers, each = 8, 40
	got := make([][]int, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { got[i], errs[i] = reservePorts(path, "127.0.0.1", each) })
	}
	wg.Wait()
	seen := map[int]int{}
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if len(got[i]) != each {
			t.Fatalf("caller %d got %d ports, want %d", i, len(got[i]), each)
		}
		for _, p := range got[i] {
			if j, dup := seen[p]; dup {
				t.Errorf("port %d handed to callers %d and %d", p, j, i)
			}
			seen[p] = i
			if p < lowPort || p > highPort {
				t.Errorf("port %d is outside %d-%d", p, lowPort, highPort)
			}
		}
	}
	var registry map[string]int
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &registry); err != nil {
		t.Fatal(err)
	}
	if len(registry) != callers*each {
		t.Errorf("the registry holds %d ports, want %d", len(registry), callers*each)
	}
	for addr, pid := range registry {
		if pid != os.Getpid() {
			t.Errorf("%s is noted under PID %d, want this process's %d", addr, pid, os.Getpid())
		}
	}
}

// TestReservePortsSkipsLiveAndBound notes every port of the range but two under this live
// process: one bound by a listener and not noted, one noted under a process that has exited.
// Only the second can be picked, and its old entry is replaced.
func TestReservePortsSkipsLiveAndBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ports.json")
	var listeners []net.Listener
	for p := lowPort; p <= highPort && len(listeners) < 2; p++ {
		if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
			listeners = append(listeners, ln)
		}
	}
	if len(listeners) < 2 {
		t.Fatal("found no two free ports in the lab's range")
	}
	bound := listeners[0].Addr().(*net.TCPAddr).Port
	defer listeners[0].Close()
	free := listeners[1].Addr().(*net.TCPAddr).Port
	listeners[1].Close()

	const exited = 1 << 30 // above Linux's limit on PIDs
	registry := map[string]int{}
	for p := lowPort; p <= highPort; p++ {
		switch p {
		case bound:
		case free:
			registry[net.JoinHostPort("127.0.0.1", strconv.Itoa(p))] = exited
		default:
			registry[net.JoinHostPort("127.0.0.1", strconv.Itoa(p))] = os.Getpid()
		}
	}
	data, _ := json.Marshal(registry)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ports, err := reservePorts(path, "127.0.0.1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if ports[0] != free {
		t.Fatalf("picked %d, want %d, the one port neither bound nor noted by a live process", ports[0], free)
	}
	if _, err := reservePorts(path, "127.0.0.1", 1); err == nil {
		t.Error("a second pick succeeded with every port of the range bound or noted")
	}
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	registry = map[string]int{}
	if err := json.Unmarshal(data, &registry); err != nil {
		t.Fatal(err)
	}
	if pid := registry[net.JoinHostPort("127.0.0.1", strconv.Itoa(free))]; pid != os.Getpid() {
		t.Errorf("port %d is noted under PID %d, want this process's %d", free, pid, os.Getpid())
	}
}
