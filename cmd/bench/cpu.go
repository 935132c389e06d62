package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The machine is shared: other people's builds and tests may run during a
// cell. cpuSample lets a cell say how busy the cores were and with whose
// work: this process, the Postgres backends serving the bench database, and
// everything else (including Postgres's shared WAL writer and checkpointer).
// The numbers come from /proc; where it is missing (or Postgres is on
// another machine) they read as unknown.
type cpuSample struct {
	self     time.Duration
	host     time.Duration // busy time of all cores; -1 if unknown
	backends map[int]time.Duration
}

// cpuUse is how many cores each party kept busy over a cell.
type cpuUse struct {
	bench, postgres, other float64 // other < 0: unknown
}

// clockTick is the unit of /proc's CPU counters (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

func takeCPUSample(ctx context.Context, pool *pgxpool.Pool) cpuSample {
	s := cpuSample{self: processCPU(), host: hostBusy(), backends: map[int]time.Duration{}}
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		return s
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			if t, ok := pidCPU(pid); ok {
				s.backends[pid] = t
			}
		}
	}
	return s
}

// since returns the cores used between s0 and s over wall time d.
func (s cpuSample) since(s0 cpuSample, d time.Duration) cpuUse {
	u := cpuUse{bench: (s.self - s0.self).Seconds() / d.Seconds(), other: -1}
	var pg time.Duration
	for pid, t := range s.backends {
		pg += t - s0.backends[pid] // a backend born during the cell counts from zero
	}
	u.postgres = pg.Seconds() / d.Seconds()
	if s.host >= 0 && s0.host >= 0 && len(s.backends) > 0 {
		u.other = max(0, (s.host-s0.host).Seconds()/d.Seconds()-u.bench-u.postgres)
	}
	return u
}

func (u cpuUse) String() string {
	if u.other < 0 {
		return fmt.Sprintf("%.2f / ? / ?", u.bench)
	}
	return fmt.Sprintf("%.2f / %.2f / %.2f", u.bench, u.postgres, u.other)
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// hostBusy is the non-idle time of all cores since boot, or -1.
func hostBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
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
	for i, v := range f[1:9] {
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

// pidCPU is the user and system time of process pid.
func pidCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name may hold spaces; the fields after it are fixed.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * clockTick, true
}

// treeCPU is the user and system time of process root and of every process
// below it, the live ones and those they have reaped (a browser's renderers
// come and go).
func treeCPU(root int) time.Duration {
	entries, err := os.ReadDir("/proc")
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
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		// f[0] is field 3 (state), f[1] field 4 (ppid); utime, stime,
		// cutime and cstime are fields 14 to 17.
		f := strings.Fields(s[i+1:])
		if len(f) < 15 {
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
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				total += t
				break
			}
		}
	}
	return total
}
