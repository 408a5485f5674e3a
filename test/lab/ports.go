package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Ports the lab picks come from below Linux's ephemeral range (32768-60999 by default),
// which the kernel hands out as the source ports of outgoing connections: a port picked
// there and bound a moment later can meanwhile be the source port of one of the lab's own
// connections.
const (
	lowPort  = 20000
	highPort = 32767
)

// portRegistry is where every lab on the machine notes the ports it picked, so that two labs
// starting at once (make test runs the e2e suite and hostvalidation in parallel, each with a
// lab of its own) never pick the same port between one's pick and its process's bind. A test
// of a free port alone cannot see a port another lab picked and has not bound yet. An entry
// belongs to the process that picked the port and is dropped once that process is gone; by
// then the port is bound or no longer wanted, and the bind test sees the first case.
var portRegistry = filepath.Join(os.TempDir(), "fed-lab-ports.json")

// freePort picks a port on ip that is free and that no live process of a lab picked before.
func freePort(ip string) (int, error) {
	ports, err := reservePorts(portRegistry, ip, 1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// reservePorts picks n distinct ports on ip, each free to bind and absent from the registry
// at path (save for entries of processes that have exited), and notes them there under this
// process's ID. The registry is locked meanwhile, so concurrent callers, in this process or
// another, get disjoint ports.
func reservePorts(path, ip string, n int) ([]int, error) {
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	defer lock.Close() // releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}

	taken := map[string]int{} // "ip:port" -> the PID that picked it
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if err := json.Unmarshal(data, &taken); err != nil {
			taken = map[string]int{} // a torn file from a killed writer: start over
		}
	}
	for addr, pid := range taken {
		if !processAlive(pid) {
			delete(taken, addr)
		}
	}

	var ports []int
	for len(ports) < n {
		port, err := pickPort(ip, taken)
		if err != nil {
			return nil, err
		}
		taken[net.JoinHostPort(ip, strconv.Itoa(port))] = os.Getpid()
		ports = append(ports, port)
	}
	data, err = json.Marshal(taken)
	if err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o666); err != nil {
		return nil, err
	}
	return ports, os.Rename(tmp, path)
}

// pickPort returns a port on ip below the ephemeral range that is not in taken and that can
// be bound now: the first such port from a random point of the range on, so that labs on the
// machine spread over it.
func pickPort(ip string, taken map[string]int) (int, error) {
	const size = highPort - lowPort + 1
	start := rand.IntN(size)
	for i := range size {
		port := lowPort + (start+i)%size
		addr := net.JoinHostPort(ip, strconv.Itoa(port))
		if _, ok := taken[addr]; ok {
			continue
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue // bound by someone
		}
		ln.Close()
		return port, nil
	}
	return 0, fmt.Errorf("no free port on %s between %d and %d: every one is bound or picked by a running lab (see %s)", ip, lowPort, highPort, portRegistry)
}

// processAlive says whether a process with this ID exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
