package cpu_test

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/marquee-tickets/marquee/cmd/bench/cpu"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// stat is a /proc/<pid>/stat line with the given parent and utime, stime,
// cutime and cstime in ticks; the command name has a space and a
// parenthesis, as names may.
func stat(pid, ppid string, ut, st, cut, cst string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(pid + " (post gres: a) b) S " + ppid +
		" 1 1 0 -1 4194560 100 0 0 0 " + ut + " " + st + " " + cut + " " + cst + " 20 0 1 0 100 1000 10\n")}
}

func TestFakeProc(t *testing.T) {
	fake := fstest.MapFS{
		"stat":     {Data: []byte("cpu  100 5 50 1000 20 3 2 0 0 0\ncpu0 50 2 25 500 10 1 1 0 0 0\n")},
		"loadavg":  {Data: []byte("0.52 1.03 2.50 2/345 6789\n")},
		"10/stat":  stat("10", "1", "300", "100", "7", "3"),
		"11/stat":  stat("11", "10", "20", "10", "0", "0"),
		"12/stat":  stat("12", "11", "5", "5", "0", "0"),
		"13/stat":  stat("13", "1", "1000", "1000", "0", "0"),
		"self/x":   {Data: []byte("not a pid")},
		"99/stat":  {Data: []byte("garbage without the command's end")},
		"100/stat": stat("100", "12", "x", "1", "0", "0"),
	}
	p := cpu.NewProc(fake)

	t.Run("host busy is every state but idle and iowait", func(t *testing.T) {
		// 100 + 5 + 50 + 3 + 2 + 0 ticks of 10 ms.
		if got, want := p.HostBusy(), 1600*time.Millisecond; got != want {
			t.Errorf("HostBusy = %s, want %s", got, want)
		}
	})
	t.Run("a process's time is its utime and stime", func(t *testing.T) {
		got, ok := p.PID(10)
		if !ok || got != 4*time.Second {
			t.Errorf("PID(10) = %s, %v; want 4s, true", got, ok)
		}
		if _, ok := p.PID(99); ok {
			t.Error("PID(99) of a stat line without the command's end: ok")
		}
		if _, ok := p.PID(4242); ok {
			t.Error("PID(4242) of a process /proc does not have: ok")
		}
	})
	t.Run("a tree counts the process, its descendants and what they reaped", func(t *testing.T) {
		// 10: 300+100+7+3, 11: 30, 12: 10; 100's unparsable utime counts 0
		// and its stime 1; 13 is not below 10.
		if got, want := p.Tree(10), 451*clockTick; got != want {
			t.Errorf("Tree(10) = %s, want %s", got, want)
		}
		if got, want := p.Tree(12), 11*clockTick; got != want {
			t.Errorf("Tree(12) = %s, want %s", got, want)
		}
	})
	t.Run("load average", func(t *testing.T) {
		if got := p.LoadAverage(); got != "0.52 1.03 2.50" {
			t.Errorf("LoadAverage = %q", got)
		}
	})
	t.Run("a sample reads the backends /proc has", func(t *testing.T) {
		s := p.Sample([]int{10, 11, 4242})
		if len(s.Backends) != 2 || s.Backends[10] != 4*time.Second || s.Backends[11] != 300*time.Millisecond {
			t.Errorf("Backends = %v, want 10: 4s and 11: 300ms", s.Backends)
		}
		if s.Host != 1600*time.Millisecond || s.Self <= 0 {
			t.Errorf("Host = %s, Self = %s", s.Host, s.Self)
		}
	})
	t.Run("without /proc everything is unknown", func(t *testing.T) {
		empty := cpu.NewProc(fstest.MapFS{})
		if got := empty.HostBusy(); got != -1 {
			t.Errorf("HostBusy = %s, want -1", got)
		}
		if got := empty.LoadAverage(); got != "unknown" {
			t.Errorf("LoadAverage = %q", got)
		}
		u := empty.Sample([]int{10}).Since(empty.Sample(nil), time.Second)
		if u.Other >= 0 || !strings.HasSuffix(u.String(), " / ? / ?") {
			t.Errorf("Use = %+v (%s), want other unknown", u, u)
		}
	})
}

const clockTick = 10 * time.Millisecond

func TestSince(t *testing.T) {
	s0 := cpu.Sample{Self: 1 * time.Second, Host: 10 * time.Second, Backends: map[int]time.Duration{7: 2 * time.Second}}
	s1 := cpu.Sample{Self: 1500 * time.Millisecond, Host: 14 * time.Second,
		Backends: map[int]time.Duration{7: 3 * time.Second, 8: 500 * time.Millisecond}}
	u := s1.Since(s0, 2*time.Second)
	// bench 0.5 s / 2 s; postgres (1 s + 0.5 s, the new backend from zero)
	// / 2 s; other: 4 s of the host / 2 s less both.
	if u.Bench != 0.25 || u.Postgres != 0.75 || u.Other != 1 {
		t.Errorf("Since = %+v, want 0.25 / 0.75 / 1", u)
	}
	if got := u.String(); got != "0.25 / 0.75 / 1.00" {
		t.Errorf("String = %q", got)
	}
	t.Run("other is never below zero", func(t *testing.T) {
		s1 := s1
		s1.Host = 11 * time.Second
		if u := s1.Since(s0, 2*time.Second); u.Other != 0 {
			t.Errorf("Other = %v, want 0", u.Other)
		}
	})
	t.Run("no backend seen: other is unknown", func(t *testing.T) {
		if u := (cpu.Sample{Self: 2 * time.Second, Host: 20 * time.Second}).Since(cpu.Sample{Host: 10 * time.Second}, time.Second); u.Other != -1 {
			t.Errorf("Other = %v, want -1", u.Other)
		}
	})
}

// burn works until this process has used d of CPU (on a busy machine that
// takes longer than d), or gives up after a minute.
func burn(t *testing.T, d time.Duration) {
	x := 0
	start, deadline := cpu.ProcessCPU(), time.Now().Add(time.Minute)
	for cpu.ProcessCPU()-start < d {
		if time.Now().After(deadline) {
			t.Fatalf("could not use %s of CPU in a minute", d)
		}
		for i := range 100000 {
			x += i
		}
	}
	_ = x
}

func TestHostProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	p := cpu.Host()
	t.Run("this process's work shows in its own figure and the host's", func(t *testing.T) {
		pid := os.Getpid()
		self0, host0 := cpu.ProcessCPU(), p.HostBusy()
		own0, ok := p.PID(pid)
		if !ok || host0 < 0 {
			t.Fatalf("PID(%d) = %v, HostBusy = %s", pid, ok, host0)
		}
		burn(t, 300*time.Millisecond)
		self1, host1 := cpu.ProcessCPU(), p.HostBusy()
		own1, _ := p.PID(pid)
		// /proc counts in 10 ms ticks and getrusage in microseconds: they
		// agree to a few ticks.
		if d, want := own1-own0, self1-self0; d < want-50*time.Millisecond || d > want+50*time.Millisecond {
			t.Errorf("PID(self) grew by %s while getrusage counted %s", d, want)
		}
		if d := host1 - host0; d < 250*time.Millisecond {
			t.Errorf("HostBusy grew by %s over 300 ms of this process's work", d)
		}
	})
	t.Run("a tree counts a child's work, live and reaped", func(t *testing.T) {
		// A shell that runs a busy child and waits for it. The shell stays
		// in /proc until it is waited for, so its child's time shows there,
		// live or reaped, until then.
		cmd := exec.Command("sh", "-c", `sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'`)
		before := p.Tree(os.Getpid())
		if err := cmd.Start(); err != nil {
			t.Skip("no sh:", err)
		}
		var during time.Duration
		for deadline := time.Now().Add(30 * time.Second); during == 0 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			during = p.Tree(cmd.Process.Pid)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		after := p.Tree(os.Getpid())
		if during <= 0 {
			t.Errorf("Tree(shell) = %s while its child works", during)
		}
		if after-before < 50*time.Millisecond {
			t.Errorf("Tree(self) grew by %s over a child's busy loop", after-before)
		}
	})
	if p.LoadAverage() == "unknown" {
		t.Error("LoadAverage unknown on Linux")
	}
}

func TestSampleDatabase(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	store := pgtest.NewStore(t, 2)
	pool := store.Pool()
	ctx := context.Background()
	s0 := cpu.Host().SampleDatabase(ctx, pool)
	if len(s0.Backends) == 0 {
		t.Skip("the Postgres server's processes are not in this machine's /proc")
	}
	// Work for the backends: each of the pool's connections sorts
	// 200,000 numbers.
	began := time.Now()
	pgtest.Release(2, func(int) {
		pgtest.Exec(t, pool, `SELECT count(*) FROM (SELECT g FROM generate_series(1, 200000) g ORDER BY random()) x`)
	})
	s1 := cpu.Host().SampleDatabase(ctx, pool)
	u := s1.Since(s0, time.Since(began))
	if u.Postgres <= 0 || u.Other < 0 {
		t.Errorf("Use = %+v: want the backends' work counted and other known", u)
	}
}
