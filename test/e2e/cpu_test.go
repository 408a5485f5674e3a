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
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/fedhq/fed/test/lab"
)

// cpuRoles groups the lab's processes for a benchmark's CPU report, in the report's order.
var cpuRoles = []string{"fed-apiserver", "member apiservers", "etcd", "member controllers", "host cluster", "benchmark client"}

// cpuRole is the group of a lab process: "fed-apiserver", "etcd", the host's processes,
// the members' apiservers, and the members' controller managers, schedulers, kwok and
// metrics-servers.
func cpuRole(process string) string {
	switch {
	case process == "fed-apiserver" || process == "etcd":
		return process
	case strings.HasPrefix(process, "host-"):
		return "host cluster"
	case strings.HasSuffix(process, "-apiserver"):
		return "member apiservers"
	default:
		return "member controllers"
	}
}

// cpuMark is the CPU time the lab's processes and this benchmark had used at one moment.
type cpuMark struct {
	at    time.Time
	procs map[string]time.Duration
	self  time.Duration
}

func markCPU() cpuMark {
	return cpuMark{at: time.Now(), procs: theLab.CPUTimes(), self: lab.SelfCPUTime()}
}

// cpuUse is the CPU time used between two marks, by role, and the wall time between them.
type cpuUse struct {
	wall  time.Duration
	roles map[string]time.Duration
}

// cpuSince is what was used from before until now. A process that restarted in between
// (its time went down) counts from zero.
func cpuSince(before cpuMark) cpuUse {
	now := markCPU()
	u := cpuUse{wall: now.at.Sub(before.at), roles: map[string]time.Duration{}}
	for name, t := range now.procs {
		if prev, ok := before.procs[name]; ok && prev <= t {
			t -= prev
		}
		u.roles[cpuRole(name)] += t
	}
	u.roles["benchmark client"] = now.self - before.self
	return u
}

func (u cpuUse) total() time.Duration {
	var sum time.Duration
	for _, t := range u.roles {
		sum += t
	}
	return sum
}

// meanCPU is the mean of several runs' use.
func meanCPU(uses []cpuUse) cpuUse {
	m := cpuUse{roles: map[string]time.Duration{}}
	if len(uses) == 0 {
		return m
	}
	n := time.Duration(len(uses))
	for _, u := range uses {
		m.wall += u.wall / n
		for r, t := range u.roles {
			m.roles[r] += t / n
		}
	}
	return m
}

// String reads "fed-apiserver 46.5s, member apiservers 41.7s, ...: 127.0s of CPU in 69.6s,
// of the 139.2s that 2 cores give"; roles that used nothing are left out.
func (u cpuUse) String() string {
	var parts []string
	for _, r := range cpuRoles {
		if t := u.roles[r]; t > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1fs", r, t.Seconds()))
		}
	}
	cores := runtime.NumCPU()
	return fmt.Sprintf("%s: %.1fs of CPU in %.1fs, of the %.1fs that %d cores give", strings.Join(parts, ", "),
		u.total().Seconds(), u.wall.Seconds(), u.wall.Seconds()*float64(cores), cores)
}

// labIdleCores is how many cores the lab uses with nothing to do, which waitQuiet allows on
// top of its third of a core: 30 members' apiservers use more than a third between them.
// measureIdle sets it; it is 0 until then.
var labIdleCores float64

// measureIdle measures labIdleCores over d, which the caller knows to be idle.
func measureIdle(d time.Duration) float64 {
	mark := markCPU()
	time.Sleep(d)
	u := cpuSince(mark)
	labIdleCores = float64(u.total()) / float64(u.wall)
	return labIdleCores
}

// waitQuiet waits, up to limit, until the lab uses less than a third of a core over two
// seconds (more than it does idle), so that what a benchmark times next does not share
// the machine with the lab still settling what it just set up; it returns how long that
// took.
func waitQuiet(limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < limit {
		mark := markCPU()
		time.Sleep(2 * time.Second)
		u := cpuSince(mark)
		if float64(u.total()) < float64(u.wall)*(1.0/3+labIdleCores) {
			break
		}
	}
	return time.Since(start)
}
