package lab

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one program of the lab: its command line, its log and its PID file.
type process struct {
	name string // unique in the lab, e.g. "member1-apiserver"
	bin  string
	args []string
	dir  string // the lab's state directory
}

func (p *process) logPath() string { return filepath.Join(p.dir, "logs", p.name+".log") }
func (p *process) pidPath() string { return filepath.Join(p.dir, "pids", p.name+".pid") }

// start runs the process in the background with its output appended to its log. A detached
// process gets a session of its own and outlives the caller (make up); an attached one is
// killed by the kernel when the caller dies (a lab a test started for itself).
func (p *process) start(detach bool) error {
	for _, d := range []string{filepath.Dir(p.logPath()), filepath.Dir(p.pidPath())} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if _, err := os.Stat(p.bin); err != nil {
		return fmt.Errorf("%s: %w (run `make bin` to build the lab's binaries)", p.name, err)
	}
	logf, err := os.OpenFile(p.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "---- %s starting: %s %s\n", time.Now().Format(time.RFC3339), p.bin, strings.Join(p.args, " "))

	cmd := exec.Command(p.bin, p.args...)
	cmd.Dir = p.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	if detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	start := cmd.Start
	if !detach {
		start = func() error { return startOnSpawnThread(cmd) }
	}
	if err := start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	pid := cmd.Process.Pid
	if err := os.WriteFile(p.pidPath(), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return err
	}
	// Reap the child when it exits so that a crash shows as a dead PID, not a zombie.
	go func() { _ = cmd.Wait() }()
	return nil
}

// The kernel sends a child its parent-death signal when the thread that forked it exits,
// not the process, and the Go runtime may end idle threads. Attached children are therefore
// forked from one goroutine locked to its thread for the life of the process.
var (
	spawnOnce sync.Once
	spawns    chan spawnRequest
)

type spawnRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func startOnSpawnThread(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawns = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for req := range spawns {
				req.done <- req.cmd.Start()
			}
		}()
	})
	req := spawnRequest{cmd: cmd, done: make(chan error, 1)}
	spawns <- req
	return <-req.done
}

// pid returns the PID recorded for the process if that PID still runs this process's binary.
func (p *process) pid() (int, bool) {
	data, err := os.ReadFile(p.pidPath())
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, runs(pid, p.bin)
}

func (p *process) alive() bool {
	_, ok := p.pid()
	return ok
}

// anyAlive tells whether one of procs runs.
func anyAlive(procs []*process) bool { return slices.ContainsFunc(procs, (*process).alive) }

// procStat reads a process's state and parent from /proc/PID/stat ("pid (comm) S ppid ...":
// they follow the parenthesised command name, which may hold spaces).
func procStat(pid int) (state string, ppid int, ok bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return "", 0, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 2 {
		return "", 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	return fields[0], ppid, err == nil
}

// runs tells whether pid is a live (not zombie) process whose executable is bin.
func runs(pid int, bin string) bool {
	if state, _, ok := procStat(pid); !ok || state == "Z" {
		return false
	}
	// A child that cmd.Start has just returned may still be inside execve: the kernel
	// closes the pipe Start waits on before it sets up the new program's arguments, so for
	// a moment its command line reads empty. Look again before calling it gone.
	for i := 0; i < 100; i++ {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return false
		}
		if len(cmdline) > 0 {
			argv0, _, _ := bytes.Cut(cmdline, []byte{0})
			return string(argv0) == bin
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// stop sends SIGTERM, waits up to grace, then SIGKILL; with no grace it only kills, as a
// crash would. It is a no-op for a process that is not running; the PID file is removed
// either way.
func (p *process) stop(grace time.Duration) error {
	defer os.Remove(p.pidPath())
	pid, ok := p.pid()
	if !ok {
		return nil
	}
	if grace > 0 {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !runs(pid, p.bin) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return fmt.Errorf("killing %s (pid %d): %w", p.name, pid, err)
	}
	for i := 0; i < 100 && runs(pid, p.bin); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// logTail returns the last n lines of the process's log.
func (p *process) logTail(n int) string {
	data, err := os.ReadFile(p.logPath())
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ProcessError reports a lab process that exited while the lab was starting or running.
type ProcessError struct {
	Name    string
	Log     string
	LogTail string
}

func (e *ProcessError) Error() string {
	return fmt.Sprintf("lab process %s is not running; last lines of %s:\n%s", e.Name, e.Log, indent(e.LogTail))
}

func (p *process) deadError() error {
	return &ProcessError{Name: p.name, Log: p.logPath(), LogTail: p.logTail(20)}
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
