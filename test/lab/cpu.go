package lab

import (
	"fmt"
	"time"

	"github.com/prometheus/procfs"
)

// CPUTimes returns the CPU time (user and system) each running process of the lab has used
// since it started, by process name ("etcd", "fed-apiserver", "member1-apiserver", ...).
// Benchmarks take it before and after a run to show where the machine's cores went.
func (l *Lab) CPUTimes() map[string]time.Duration {
	times := map[string]time.Duration{}
	for _, p := range l.processes() {
		pid, ok := p.pid()
		if !ok {
			continue
		}
		if d, ok := cpuTime(pid); ok {
			times[p.name] = d
		}
	}
	return times
}

// SelfCPUTime is the CPU time the calling process has used, e.g. a benchmark's client.
func SelfCPUTime() time.Duration {
	self, err := procfs.Self()
	if err != nil {
		return 0
	}
	d, _ := cpuTime(self.PID)
	return d
}

func cpuTime(pid int) (time.Duration, bool) {
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return 0, false
	}
	stat, err := proc.Stat()
	if err != nil {
		return 0, false
	}
	return time.Duration(stat.CPUTime() * float64(time.Second)), true
}

// Memory is a lab process's resident memory now and at its peak (VmRSS, VmHWM), and the
// part of it now in pages of mapped files (RssFile), in bytes.
type Memory struct{ RSS, Peak, File uint64 }

// ProcessMemory reads a running lab process's memory from /proc, by name as find takes it.
func (l *Lab) ProcessMemory(name string) (Memory, error) {
	p, err := l.find(name)
	if err != nil {
		return Memory{}, err
	}
	pid, ok := p.pid()
	if !ok {
		return Memory{}, fmt.Errorf("%s does not run", name)
	}
	proc, err := procfs.NewProc(pid)
	if err != nil {
		return Memory{}, err
	}
	status, err := proc.NewStatus()
	if err != nil {
		return Memory{}, err
	}
	return Memory{RSS: status.VmRSS, Peak: status.VmHWM, File: status.RssFile}, nil
}
