package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

// The fan-out is measured against a real app instance in a child process
// (this binary run with -live-serve): web.New with Config.Live set, the hub,
// its listener and the notifier wired as cmd/marquee/serve.go wires them,
// served on 127.0.0.1. The websocket clients and the stream of changes run
// in this process. Two processes keep the server's memory and CPU apart
// from the clients'; they still share the machine's cores with Postgres.

// liveServeEnv carries the database URL to the child (not on its command
// line, where ps would show it).
const liveServeEnv = "MARQUEE_BENCH_LIVE_DATABASE_URL"

// serverStats is what the child reports about itself.
type serverStats struct {
	HeapInuse   uint64 `json:"heap_inuse"`
	StackInuse  uint64 `json:"stack_inuse"`
	Sys         uint64 `json:"sys"`
	RSS         uint64 `json:"rss"` // VmRSS, bytes
	Goroutines  int    `json:"goroutines"`
	Subscribers int    `json:"subscribers"`
}

// serveLive is the child: an app instance until stdin closes (the parent
// is done or gone) or a signal arrives.
func serveLive() error {
	dbURL := os.Getenv(liveServeEnv)
	if dbURL == "" {
		return errors.New("-live-serve: " + liveServeEnv + " is not set")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A one-off look at where the server's CPU goes while the stream runs:
	// the profile starts when the parent, all subscribers connected, asks
	// for stats with profile=1, and ends when the process does. Every server
	// process writes the same file; the last (the largest fan-out) stays.
	profilePath := os.Getenv("MARQUEE_BENCH_LIVE_CPUPROFILE")
	var profileOnce sync.Once
	defer func() {
		if profilePath != "" {
			pprof.StopCPUProfile()
		}
	}()
	go func() {
		io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	pool, err := postgres.Connect(ctx, dbURL, int32(4*runtime.NumCPU()))
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.NewStore(pool)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	hub := live.NewHub(store.SeatStates, log)
	hub.Metrics = m
	listener := &live.Listener{
		DatabaseURL: dbURL, Hub: hub, Log: log, Metrics: m,
		MinBackoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second,
	}
	notifier := &live.Notifier{
		Flush: func(ctx context.Context, limit int) (int, error) {
			return store.AnnounceSeatChanges(ctx, live.Channel, limit)
		},
		Interval: announceInterval, Batch: announceBatch, Log: log,
		Vacuum: store.VacuumSeatEvents, VacuumEvery: announceVacuumEvery,
	}
	wctx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	var workers sync.WaitGroup
	for _, run := range []func(context.Context){hub.Run, listener.Run, notifier.Run} {
		workers.Go(func() { run(wctx) })
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	handler := server.New(web.Config{
		PublicURL: base, HoldTTL: 5 * time.Minute, MaxSeatsPerHold: maxSeatsPerHold,
		WebhookSecret: secret, RateLimits: false, PasswordCost: 4, Live: hub,
	}, store, m, reg, log)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /bench/stats", func(w http.ResponseWriter, r *http.Request) {
		if profilePath != "" && r.URL.Query().Get("profile") == "1" {
			profileOnce.Do(func() {
				if f, err := os.Create(profilePath); err == nil {
					pprof.StartCPUProfile(f) // the file is closed at exit
				}
			})
		}
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		show, _ := strconv.ParseInt(r.URL.Query().Get("show"), 10, 64)
		json.NewEncoder(w).Encode(serverStats{
			HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse, Sys: ms.Sys, RSS: selfRSS(),
			Goroutines: runtime.NumGoroutine(), Subscribers: hub.Subscribers(show),
		})
	})
	mux.Handle("/", handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Println(base) // the parent waits for this line

	select {
	case <-ctx.Done():
	case err = <-served:
	}
	hub.CloseAll()
	srv.Close()
	stopWorkers()
	workers.Wait()
	return err
}

// selfRSS is this process's resident set in bytes, from /proc (0 elsewhere).
func selfRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// liveServer is the parent's handle on the child.
type liveServer struct {
	cmd   *exec.Cmd
	stdin io.Closer
	base  string
	hc    *http.Client
}

func startLiveServer(ctx context.Context, dbURL string) (*liveServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-live-serve")
	cmd.Env = append(os.Environ(), liveServeEnv+"="+dbURL)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the live server: %w", err)
	}
	s := &liveServer{cmd: cmd, stdin: stdin, hc: &http.Client{Timeout: 30 * time.Second}}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		if !ok || !strings.HasPrefix(l, "http://127.0.0.1:") {
			s.stop()
			return nil, fmt.Errorf("the live server did not start (said %q)", l)
		}
		s.base = l
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("the live server did not start within 30 s")
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
	return s, nil
}

func (s *liveServer) pid() int { return s.cmd.Process.Pid }

// stats asks the child for its memory (after two GCs) and show's
// subscribers; profile starts its CPU profile when one was asked for.
func (s *liveServer) stats(ctx context.Context, show int64, profile bool) (serverStats, error) {
	var st serverStats
	q := ""
	if profile {
		q = "&profile=1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/bench/stats?show=%d%s", s.base, show, q), nil)
	if err != nil {
		return st, err
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return st, fmt.Errorf("live server stats: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("live server stats: %w", err)
	}
	return st, nil
}

// stop closes the child's stdin (it shuts down) and kills it if it has not
// exited within 10 s.
func (s *liveServer) stop() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.hc.CloseIdleConnections()
}

// wsClient is one browser on the show page: a guest's websocket.
type wsClient struct {
	conn    *websocket.Conn
	r       *receiver
	first   chan struct{} // closed when the initial seat map arrived
	closed  atomic.Bool   // the server closed it or a read failed
	closing atomic.Bool   // we are closing it
	bytes   int64
	err     error
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// dialClient opens a websocket to the show's live seat map as a guest with
// the site's Origin and reads its messages into r until the connection ends.
func dialClient(ctx context.Context, base string, hc *http.Client, show int64, r *receiver, wg *sync.WaitGroup) (*wsClient, error) {
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(dctx, fmt.Sprintf("%s/shows/%d/live", base, show), &websocket.DialOptions{
		HTTPClient: hc,
		HTTPHeader: http.Header{"Origin": []string{base}},
	})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(1 << 20) // the first message is the whole map
	c := &wsClient{conn: conn, r: r, first: make(chan struct{})}
	wg.Go(func() {
		firstDone := false
		for {
			_, rd, err := conn.Reader(context.Background())
			if err != nil {
				if !c.closing.Load() {
					c.closed.Store(true)
					c.err = err
				}
				if !firstDone {
					close(c.first)
				}
				return
			}
			buf := bufPool.Get().(*bytes.Buffer)
			buf.Reset()
			_, err = buf.ReadFrom(rd)
			at := r.s.now()
			if err == nil {
				c.bytes += int64(buf.Len())
				if firstDone {
					r.msgs++
					scanSeats(buf.Bytes(), func(seat, status string) {
						switch status {
						case "held", "booked", "mine":
							r.saw(seat, status == "held", at)
						case "available":
							r.saw(seat, false, at)
						}
					})
				}
			}
			bufPool.Put(buf)
			if !firstDone {
				firstDone = true
				close(c.first)
			}
		}
	})
	return c, nil
}

// scanSeats calls f with each seat button's data-seat and data-status in an
// out-of-band fragment (components.Seat writes data-seat, then data-status).
func scanSeats(b []byte, f func(seat, status string)) {
	const seatAttr, statusAttr = `data-seat="`, `data-status="`
	for {
		i := bytes.Index(b, []byte(seatAttr))
		if i < 0 {
			return
		}
		b = b[i+len(seatAttr):]
		j := bytes.IndexByte(b, '"')
		if j < 0 {
			return
		}
		seat := string(b[:j])
		b = b[j:]
		k := bytes.Index(b, []byte(statusAttr))
		if k < 0 {
			return
		}
		b = b[k+len(statusAttr):]
		j = bytes.IndexByte(b, '"')
		if j < 0 {
			return
		}
		f(seat, string(b[:j]))
		b = b[j:]
	}
}

// raiseFileLimit lifts the soft limit on open files to the hard one when
// need is more than the soft limit allows; the child inherits it.
func raiseFileLimit(need uint64) (uint64, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	if rl.Cur >= need {
		return rl.Cur, nil
	}
	rl.Cur = rl.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	if rl.Cur < need {
		return rl.Cur, fmt.Errorf("open files: the hard limit %d is below the %d needed", rl.Max, need)
	}
	return rl.Cur, nil
}
