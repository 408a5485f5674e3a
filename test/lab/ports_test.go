package lab

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func readRegistry(t *testing.T, path string) map[string]portOwner {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]portOwner{}
	if err := json.Unmarshal(data, &held); err != nil {
		t.Fatal(err)
	}
	return held
}

func addr(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }

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
		wg.Go(func() {
			got[i] = make([]int, each)
			slots := make([]portSlot, each)
			for j := range slots {
				slots[j] = portSlot{"127.0.0.1", &got[i][j]}
			}
			errs[i] = reservePorts(path, portOwner{PID: os.Getpid()}, slots)
		})
	}
	wg.Wait()
	seen := map[int]int{}
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
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
	held := readRegistry(t, path)
	if len(held) != callers*each {
		t.Errorf("the registry holds %d ports, want %d", len(held), callers*each)
	}
	for a, o := range held {
		if o.PID != os.Getpid() {
			t.Errorf("%s is held by %+v, want this process, %d", a, o, os.Getpid())
		}
	}
}

// TestReservePortsOwners fills the registry with every port of the range, held by this live
// process, by a lab directory that exists, by a process that has exited and by a lab
// directory that is gone, except one port bound by a listener and one saved by the lab. The
// saved port is noted under the lab as it is; the two picks get the gone directory's and the
// exited process's ports, never the bound one; a third pick fails, naming the registry; and
// a saved port another live owner holds is refused.
func TestReservePortsOwners(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ports.json")
	// Real ports, held in the machine's registry by this test's process, so that no lab
	// starting meanwhile picks them.
	bound, goneDir, deadPID, saved := 0, 0, 0, 0
	for _, p := range []*int{&bound, &goneDir, &deadPID, &saved} {
		var err error
		if *p, err = freePort("127.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", addr(bound))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()

	labDir, gone := t.TempDir(), filepath.Join(t.TempDir(), "removed")
	const exited = 1 << 30 // above Linux's limit on PIDs
	held := map[string]portOwner{}
	for p := lowPort; p <= highPort; p++ {
		switch p {
		case bound, saved:
		case goneDir:
			held[addr(p)] = portOwner{Dir: gone}
		case deadPID:
			held[addr(p)] = portOwner{PID: exited}
		default:
			if p%2 == 0 {
				held[addr(p)] = portOwner{PID: os.Getpid()}
			} else {
				held[addr(p)] = portOwner{Dir: labDir}
			}
		}
	}
	data, _ := json.Marshal(held)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	lab := portOwner{Dir: labDir}
	keep, first := saved, 0
	if err := reservePorts(path, lab, []portSlot{{"127.0.0.1", &keep}, {"127.0.0.1", &first}}); err != nil {
		t.Fatal(err)
	}
	second := 0
	if err := reservePorts(path, lab, []portSlot{{"127.0.0.1", &second}}); err != nil {
		t.Fatal(err)
	}
	if keep != saved {
		t.Errorf("the saved port %d became %d", saved, keep)
	}
	if got := []int{first, second}; !(got[0] == goneDir && got[1] == deadPID || got[0] == deadPID && got[1] == goneDir) {
		t.Errorf("picked %v, want the ports of the gone directory (%d) and of the exited process (%d)", got, goneDir, deadPID)
	}
	third := 0
	if err := reservePorts(path, lab, []portSlot{{"127.0.0.1", &third}}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a third pick got %d, %v; want an error naming the registry, with every port of the range bound or held", third, err)
	}
	other := portOwner{Dir: t.TempDir()}
	if err := reservePorts(path, other, []portSlot{{"127.0.0.1", &keep}}); err == nil || !strings.Contains(err.Error(), labDir) {
		t.Errorf("another lab's saved port %d, held by the first: %v; want an error naming the lab that holds it", keep, err)
	}
	held = readRegistry(t, path)
	for _, p := range []int{saved, goneDir, deadPID} {
		if o := held[addr(p)]; o != lab {
			t.Errorf("port %d is held by %+v, want the lab %+v", p, o, lab)
		}
	}
	if _, ok := held[addr(bound)]; ok {
		t.Errorf("the bound port %d is in the registry", bound)
	}
}
