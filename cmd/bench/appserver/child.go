package appserver

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
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
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/admitter"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/reconcile"
	"github.com/marquee-tickets/marquee/internal/refunds"
	"github.com/marquee-tickets/marquee/internal/sweeper"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/server"
)

// The fan-out, the burst and the browser benchmark measure a real app
// instance in a child process: this binary run with -live-serve, which
// calls Serve: web.New with the live seat map (the hub, its listener and
// the notifier), the sweeper and Sandbox Pay with its workers wired as
// cmd/marquee/serve.go wires them (PAYMENTS=sandbox, as `make run`), rate
// limits off, served on 127.0.0.1. The clients run in the parent. Two
// processes keep the server's memory and CPU apart from the clients'; they
// still share the machine's cores with Postgres.

// ChildFlag is the flag (without its dash) that makes the benchmark binary
// the child: its main calls Serve when it is set.
const ChildFlag = "live-serve"

// databaseEnv carries the database URL to the child (not on its command
// line, where ps would show it).
const databaseEnv = "MARQUEE_BENCH_LIVE_DATABASE_URL"

// secretEnv carries the webhook secret the parent chose to the child, in
// hex: the parent signs payment webhooks with it as the provider would.
const secretEnv = "MARQUEE_BENCH_WEBHOOK_SECRET"

// As in cmd/marquee/serve.go: the background workers' periods and batches.
const (
	sweepInterval = time.Second
	sweepBatch    = 500
	jobsConns     = 4
	paymentJobs   = 10
)

// profileEnv, when set in the parent's environment, makes the child write
// a CPU profile to that file (see Serve).
const profileEnv = "MARQUEE_BENCH_SERVER_CPUPROFILE"

// Stats is what the child reports about itself.
type Stats struct {
	HeapInuse   uint64 `json:"heap_inuse"`
	StackInuse  uint64 `json:"stack_inuse"`
	Sys         uint64 `json:"sys"`
	RSS         uint64 `json:"rss"` // VmRSS, bytes
	Goroutines  int    `json:"goroutines"`
	Subscribers int    `json:"subscribers"`
}

// Serve is the child: an app instance until stdin closes (the parent is
// done or gone) or a signal arrives. It prints its base URL on stdout
// once it serves.
func Serve() error {
	dbURL := os.Getenv(databaseEnv)
	if dbURL == "" {
		return errors.New("-" + ChildFlag + ": " + databaseEnv + " is not set")
	}
	secret, err := hex.DecodeString(os.Getenv(secretEnv))
	if err != nil || len(secret) == 0 {
		return errors.New("-" + ChildFlag + ": " + secretEnv + " is not a secret in hex")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A one-off look at where the server's CPU goes while the stream runs:
	// the profile starts when the parent, all subscribers connected, asks
	// for stats with profile=1, and ends when the process does. Every server
	// process writes the same file; the last (the largest fan-out) stays.
	profilePath := os.Getenv(profileEnv)
	var profileOnce sync.Once
	defer func() {
		if profilePath != "" {
			pprof.StopCPUProfile()
		}
	}()
	go func() {
		// The end of stdin or a failure to read it: the parent is done
		// or gone either way.
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	pool, err := postgres.Connect(ctx, dbURL, ChildPoolSize())
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

	m := metrics.New(prometheus.NewRegistry())
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
		Interval: AnnounceInterval, Batch: AnnounceBatch, Log: log,
		Vacuum: store.VacuumSeatEvents, VacuumEvery: AnnounceVacuumEvery,
	}
	fronts := live.NewFronts()
	fronts.Seen, fronts.SeenEvery, fronts.Log = store.SeeTickets, time.Minute, log
	listener.Fronts = fronts
	admit := &admitter.Worker{Store: store, TTL: waitroom.DefaultAdmissionTTL, Interval: time.Second, Log: log}
	sw := &sweeper.Sweeper{Store: store, Interval: sweepInterval, Batch: sweepBatch, Metrics: m, Log: log}
	sb := sandbox.New(pool, sandbox.Config{PublicURL: base, Secret: secret, Log: log})
	wctx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	var workers sync.WaitGroup
	for _, run := range []func(context.Context){sw.Run, hub.Run, listener.Run, notifier.Run, admit.Run, fronts.Run} {
		workers.Go(func() { run(wctx) })
	}
	jobsPool, err := postgres.Connect(ctx, dbURL, jobsConns)
	if err != nil {
		stopWorkers()
		workers.Wait()
		return err
	}
	defer jobsPool.Close()
	jobWorkers := river.NewWorkers()
	river.AddWorker(jobWorkers, &refunds.Worker{Store: store, Provider: sb, Log: log})
	river.AddWorker(jobWorkers, &sandbox.WebhookWorker{Sandbox: sb})
	river.AddWorker(jobWorkers, &reconcile.Worker{
		Store: store, Provider: sb, Receiver: &boxoffice.Receiver{Store: store, Metrics: m},
		Delay: reconcile.DefaultDelay, Log: log,
		Settle: max(reconcile.DefaultSettle, booking.DefaultPaymentGrace),
	})
	if _, err := sb.Resume(ctx); err != nil {
		stopWorkers()
		workers.Wait()
		return err
	}
	stopJobs, err := jobs.Start(wctx, jobsPool, jobs.Config{
		Workers: jobWorkers, Queues: map[string]int{jobs.QueuePayments: paymentJobs}, Log: log,
	})
	if err != nil {
		stopWorkers()
		workers.Wait()
		return err
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /bench/stats", func(w http.ResponseWriter, r *http.Request) {
		if profilePath != "" && r.URL.Query().Get("profile") == "1" {
			profileOnce.Do(func() {
				f, err := os.Create(profilePath)
				if err != nil {
					log.Warn("no CPU profile", "err", err)
					return
				}
				if err := pprof.StartCPUProfile(f); err != nil { // the file is closed at exit
					log.Warn("no CPU profile", "err", err)
					f.Close()
				}
			})
		}
		runtime.GC()
		runtime.GC()
		if profilePath != "" && r.URL.Query().Get("profile") == "1" {
			// And what the connected subscribers keep: the heap beside it.
			if f, err := os.Create(profilePath + ".heap"); err == nil {
				if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
					log.Warn("no heap profile", "err", err)
				}
				f.Close()
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		show, _ := strconv.ParseInt(r.URL.Query().Get("show"), 10, 64)
		if err := json.NewEncoder(w).Encode(Stats{
			HeapInuse: ms.HeapInuse, StackInuse: ms.StackInuse, Sys: ms.Sys, RSS: selfRSS(),
			Goroutines: runtime.NumGoroutine(), Subscribers: hub.Subscribers(show),
		}); err != nil {
			log.Warn("send the stats", "err", err)
		}
	})
	cfg := config(base, 5*time.Minute, secret)
	cfg.Sandbox, cfg.Live, cfg.Fronts = sb, hub, fronts
	mux.Handle("/", server.New(cfg, store, m, log))
	// serve's timeouts: a request that cannot be read or answered in time
	// frees its connection.
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Println(base) // the parent waits for this line

	select {
	case <-ctx.Done():
	case err = <-served:
	}
	hub.CloseAll()
	srv.Close()
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = stopJobs(stopCtx) // a job cut short runs again in the next benchmark's child
	cancel()
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

// Child is the parent's handle on the child.
type Child struct {
	Base string // http://127.0.0.1:<port>
	// WebhookSecret is the secret the child's payment webhooks are signed
	// with (its PAYMENT_WEBHOOK_SECRET).
	WebhookSecret []byte

	cmd   *exec.Cmd
	stdin io.Closer
	hc    *http.Client
}

// StartChild runs this binary with -live-serve on dbURL's database and
// waits until it serves.
func StartChild(ctx context.Context, dbURL string) (*Child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	cmd := exec.Command(exe, "-"+ChildFlag)
	cmd.Env = append(os.Environ(), databaseEnv+"="+dbURL, secretEnv+"="+hex.EncodeToString(secret))
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
	s := &Child{WebhookSecret: secret, cmd: cmd, stdin: stdin, hc: &http.Client{Timeout: 30 * time.Second}}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		// The rest is not read; an error means the child is gone.
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l, ok := <-line:
		if !ok || !strings.HasPrefix(l, "http://127.0.0.1:") {
			return nil, errors.Join(fmt.Errorf("the live server did not start (said %q)", l), s.Stop())
		}
		s.Base = l
	case <-time.After(30 * time.Second):
		return nil, errors.Join(errors.New("the live server did not start within 30 s"), s.Stop())
	case <-ctx.Done():
		return nil, errors.Join(ctx.Err(), s.Stop())
	}
	return s, nil
}

// PID is the child's process id.
func (s *Child) PID() int { return s.cmd.Process.Pid }

// Stats asks the child for its memory (after two GCs) and show's
// subscribers; profile starts its CPU profile when one was asked for.
func (s *Child) Stats(ctx context.Context, show int64, profile bool) (Stats, error) {
	var st Stats
	q := ""
	if profile {
		q = "&profile=1"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/bench/stats?show=%d%s", s.Base, show, q), nil)
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

// Stop closes the child's stdin (it shuts down) and kills it if it has not
// exited within 10 s. Its error says how the child ended when not cleanly.
func (s *Child) Stop() error {
	s.stdin.Close()
	defer s.hc.CloseIdleConnections()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("the live server: %w", err)
		}
		return nil
	case <-time.After(10 * time.Second):
		errs := []error{errors.New("it did not exit within 10 s of its stdin closing")}
		if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			errs = append(errs, fmt.Errorf("kill: %w", err))
		}
		if err := <-done; err != nil {
			errs = append(errs, err) // "signal: killed" once killed
		}
		return fmt.Errorf("the live server: %w", errors.Join(errs...))
	}
}

// ServeIfChild makes this process the fan-out's app server when it was
// started as one (with -live-serve as its only argument, as StartChild runs
// a test binary), and exits when that ends. Otherwise it returns at once.
func ServeIfChild() {
	if len(os.Args) != 2 || os.Args[1] != "-"+ChildFlag {
		return
	}
	if err := Serve(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ChildPoolSize is the size of a child server's database pool, as
// `marquee serve` sizes it: a connection for each request slot of the
// default admission, and 9 for the background workers and /readyz.
func ChildPoolSize() int32 { return int32(web.DefaultAdmission(runtime.NumCPU()).Slots() + 9) }

// RaiseFileLimit lifts the soft limit on open files to need when it is
// lower, and the hard limit with it when that is lower too and this process
// may (as root); the child, started after, inherits it. It returns the soft
// limit now, and an error when that is still below need.
func RaiseFileLimit(need uint64) (uint64, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	if rl.Cur >= need {
		return rl.Cur, nil
	}
	if rl.Max < need {
		raised := syscall.Rlimit{Cur: need, Max: need}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			return need, nil
		}
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
