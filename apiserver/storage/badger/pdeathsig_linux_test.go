package badger

import "syscall"

// pdeathsig makes a child process die with the test binary.
func pdeathsig() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
