// Package cpu measures how busy the machine's cores were during a
// measurement and with whose work (this process, given processes such as
// Postgres backends, everything else), from Linux's /proc.
//
// The machine is shared: other people's builds and tests may run during a
// measurement, and a benchmark uses these figures to say so and to run a
// disturbed measurement again. Where /proc is missing (or Postgres runs on
// another machine) the figures read as unknown.
package cpu

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of /proc's CPU counters (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// Proc reads CPU counters from a /proc file system.
type Proc struct{ fsys fs.FS }

// Host is the machine's own /proc.
func Host() Proc { return Proc{os.DirFS("/proc")} }

// NewProc reads from fsys, laid out as /proc is (stat, <pid>/stat, loadavg).
func NewProc(fsys fs.FS) Proc { return Proc{fsys} }

// Sample is a reading of the CPU time used so far by this process, by all
// cores together and by each of a set of other processes.
type Sample struct {
	Self     time.Duration
	Host     time.Duration         // busy time of all cores; -1 if unknown
	Backends map[int]time.Duration // by pid; a process /proc does not show is left out
}

// Use is how many cores each party kept busy between two samples.
type Use struct {
	Bench, Postgres, Other float64 // Other < 0: unknown
}

// Sample reads this process's CPU time, the host's, and that of each of
// the processes backends (a benchmark's Postgres backends).
func (p Proc) Sample(backends []int) Sample {
	s := Sample{Self: ProcessCPU(), Host: p.HostBusy(), Backends: map[int]time.Duration{}}
	p.addBackends(&s, backends)
	return s
}

func (p Proc) addBackends(s *Sample, pids []int) {
	for _, pid := range pids {
		if t, ok := p.PID(pid); ok {
			s.Backends[pid] = t
		}
	}
}

// Since returns the cores used between s0 and s over wall time d.
// Everything not this process's nor the backends' counts as other; it is
// unknown when the host's figure is, or when no backend was seen (the
// server is elsewhere, so its work would count as other).
func (s Sample) Since(s0 Sample, d time.Duration) Use {
	u := Use{Bench: (s.Self - s0.Self).Seconds() / d.Seconds(), Other: -1}
	var pg time.Duration
	for pid, t := range s.Backends {
		pg += t - s0.Backends[pid] // a backend born in between counts from zero
	}
	u.Postgres = pg.Seconds() / d.Seconds()
	if s.Host >= 0 && s0.Host >= 0 && len(s.Backends) > 0 {
		u.Other = max(0, (s.Host-s0.Host).Seconds()/d.Seconds()-u.Bench-u.Postgres)
	}
	return u
}

func (u Use) String() string {
	if u.Other < 0 {
		return fmt.Sprintf("%.2f / ? / ?", u.Bench)
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f", u.Bench, u.Postgres, u.Other)
}

// ProcessCPU is the user and system CPU time this process has used.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// HostBusy is the non-idle time of all cores since boot, or -1.
func (p Proc) HostBusy() time.Duration {
	b, err := fs.ReadFile(p.fsys, "stat")
	if err != nil {
		return -1
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return -1
	}
	var busy int64
	// user nice system idle iowait irq softirq steal: all but idle and iowait.
	for i, v := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return -1
		}
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return time.Duration(busy) * clockTick
}

// statFields returns the fields of /proc/<pid>/stat after the command
// name, which may hold spaces and parentheses: f[0] is field 3 (state).
func (p Proc) statFields(pid string) ([]string, bool) {
	b, err := fs.ReadFile(p.fsys, pid+"/stat")
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(s[i+1:]), true
}

// PID is the user and system time of process pid.
func (p Proc) PID(pid int) (time.Duration, bool) {
	f, ok := p.statFields(strconv.Itoa(pid))
	// utime and stime are fields 14 and 15.
	if !ok || len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * clockTick, true
}

// Tree is the user and system time of process root and of every process
// below it, the live ones and those they have reaped (a browser's
// renderers come and go).
func (p Proc) Tree(root int) time.Duration {
	entries, err := fs.ReadDir(p.fsys, ".")
	if err != nil {
		return 0
	}
	parent := map[int]int{}
	own := map[int]time.Duration{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// f[1] is field 4 (ppid); utime, stime, cutime and cstime are
		// fields 14 to 17.
		f, ok := p.statFields(e.Name())
		if !ok || len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		var ticks int64
		for _, v := range f[11:15] {
			n, _ := strconv.ParseInt(v, 10, 64)
			ticks += n
		}
		parent[pid], own[pid] = ppid, time.Duration(ticks)*clockTick
	}
	var total time.Duration
	for pid, t := range own {
		for q := pid; q > 1; q = parent[q] {
			if q == root {
				total += t
				break
			}
		}
	}
	return total
}

// LoadAverage is the 1, 5 and 15 minute load average, or "unknown".
func (p Proc) LoadAverage() string {
	b, err := fs.ReadFile(p.fsys, "loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
