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

// portRegistry is where every lab of this user notes the ports it holds, so that two labs
// starting at once (make test runs the e2e suite and hostvalidation in parallel, each with a
// lab of its own) never pick the same port between one's pick and its process's bind, nor a
// port a lab's process left for a moment (a test restarting it). A test of a free port alone
// sees neither.
var portRegistry = filepath.Join(os.TempDir(), fmt.Sprintf("fed-lab-ports-%d.json", os.Getuid()))

// portOwner holds ports in the registry: a lab's state directory, which keeps its ports
// (lab.json) for as long as it exists, down or up (Shared removes a lab of its own when it
// stops it; make clean-lab removes .lab; a temporary lab whose test was killed keeps its
// ports until its directory goes), or a process that picked a port for a server of its
// own (StartFedServer, StartHost), until it exits.
type portOwner struct {
	Dir string `json:"dir,omitempty"`
	PID int    `json:"pid,omitempty"`
}

func (o portOwner) String() string {
	if o.Dir != "" {
		return "the lab in " + o.Dir
	}
	return "process " + strconv.Itoa(o.PID)
}

func (o portOwner) alive() bool {
	if o.Dir != "" {
		_, err := os.Stat(o.Dir)
		return !errors.Is(err, os.ErrNotExist)
	}
	if o.PID <= 0 {
		return false
	}
	err := syscall.Kill(o.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// portSlot is a port to hold on ip: *port is picked when it is 0, else noted as it is.
type portSlot struct {
	ip   string
	port *int
}

// freePort picks a port on ip that is free and that no lab holds, for this process.
func freePort(ip string) (int, error) {
	var port int
	err := reservePorts(portRegistry, portOwner{PID: os.Getpid()}, []portSlot{{ip, &port}})
	return port, err
}

// reservePorts notes each slot's port in the registry at path under owner, picking one for
// each slot without: free to bind, and not held by another owner still alive (entries of
// owners gone are dropped). A port already set that another live owner holds is an error.
// The registry is locked meanwhile, so concurrent callers, in this process or another, get
// disjoint ports.
func reservePorts(path string, owner portOwner, slots []portSlot) error {
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDONLY, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close() // releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}

	held := map[string]portOwner{} // "ip:port" -> its owner
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(data, &held); err != nil {
			held = map[string]portOwner{} // not the format of this version: start over
		}
	}
	for addr, o := range held {
		if !o.alive() {
			delete(held, addr)
		}
	}

	for _, s := range slots {
		if *s.port == 0 {
			if *s.port, err = pickPort(s.ip, held, path); err != nil {
				return err
			}
		}
		addr := net.JoinHostPort(s.ip, strconv.Itoa(*s.port))
		if other, taken := held[addr]; taken && other != owner {
			// A port saved while the registry did not know it (a new registry, /tmp
			// emptied) that another lab took meanwhile: the two cannot both run.
			return fmt.Errorf("port %s, which %s keeps, is held by %s (see %s): stop that lab first, or start this one afresh (make clean-lab for make up's)",
				addr, owner, other, path)
		}
		held[addr] = owner
	}
	if data, err = json.Marshal(held); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// pickPort returns a port on ip below the ephemeral range that is not held and that can be
// bound now: the first such port from a random point of the range on, so that labs on the
// machine spread over it.
func pickPort(ip string, held map[string]portOwner, path string) (int, error) {
	const size = highPort - lowPort + 1
	start := rand.IntN(size)
	for i := range size {
		port := lowPort + (start+i)%size
		addr := net.JoinHostPort(ip, strconv.Itoa(port))
		if _, ok := held[addr]; ok {
			continue
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			continue // bound by someone
		}
		ln.Close()
		return port, nil
	}
	return 0, fmt.Errorf("no free port on %s between %d and %d: each is bound or held by a lab (see %s)", ip, lowPort, highPort, path)
}
