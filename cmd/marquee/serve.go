package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/admitter"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/demo"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/notify"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/reconcile"
	"github.com/marquee-tickets/marquee/internal/refunds"
	"github.com/marquee-tickets/marquee/internal/sweeper"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/accesslog"
	"github.com/marquee-tickets/marquee/web/server"
)

const (
	// drainTimeout is how long requests in flight may finish after a
	// shutdown signal.
	drainTimeout = 10 * time.Second
	// poolCloseTimeout bounds the wait for connections still checked out
	// when the pool closes (a request cut off after the drain).
	poolCloseTimeout = 5 * time.Second
	sweepInterval    = time.Second
	sweepBatch       = 500
	// jobsConns is the background jobs' own pool (River's fetching, its
	// maintenance and the jobs themselves), apart from the requests'.
	jobsConns = 4
	// jobsStopTimeout is how long the jobs being worked at shutdown may
	// take to finish; then they are cancelled, and another instance
	// takes them up (every job may run again).
	jobsStopTimeout = 10 * time.Second
	// paymentJobs and mailJobs are how many jobs of each queue one
	// instance works at once.
	paymentJobs = 10
	mailJobs    = 4
	// announceInterval is the batching delay the live seat map adds.
	announceInterval = 50 * time.Millisecond
	announceBatch    = 2000
	// announceVacuumEvery is how many announced seat changes the notifier
	// lets pile up as dead rows in seat_events before it vacuums them.
	announceVacuumEvery = 1000
	// admitInterval is the waiting rooms' step; frontsSeenEvery how often
	// the tickets of open waiting pages are marked seen (well within
	// waitroom.SeenTimeout).
	admitInterval   = time.Second
	frontsSeenEvery = time.Minute
)

// jobsRescueAfter is how long a background job left running by an
// instance that died is left before it runs again; 0: the jobs' default
// (jobs.DefaultRescueAfter). Only the fault tests' app sets it (see
// serveIfChild), to see a killed app's job rescued without waiting
// minutes; no configuration reaches it.
var jobsRescueAfter time.Duration

// serve runs the app until ctx is done (a signal), then shuts it down in
// order: stop accepting, let requests in flight finish, stop the sweeper and
// the workers, close the pool. stopSignals restores default signal handling,
// so a second Ctrl-C during the drain kills the process.
func serve(ctx context.Context, stopSignals func(), cfg config, loadDemo bool, log *slog.Logger) error {
	log.Info("starting marquee",
		"addr", cfg.Addr, "public_url", cfg.PublicURL, "hold_ttl", cfg.HoldTTL,
		"max_seats_per_hold", cfg.MaxSeatsPerHold, "rate_limits", cfg.RateLimits, "reconcile_delay", cfg.ReconcileDelay,
		"payment_grace", cfg.PaymentGrace,
		"trusted_proxies", cfg.TrustedProxies, "max_held_per_address_per_show", cfg.MaxHeldPerAddressPerShow,
		"max_held_per_address", cfg.MaxHeldPerAddress,
		"session_idle_timeout", cfg.SessionIdleTimeout, "payments", cfg.Payments, "metrics_addr", cfg.MetricsAddr,
		"read_slots", cfg.Admission.Reads.Slots, "write_slots", cfg.Admission.Writes.Slots,
		"webhook_slots", cfg.Admission.Webhooks.Slots, "max_queue_wait", cfg.Admission.Writes.MaxWait,
		"pool", poolSize(cfg.Admission), "log_level", cfg.LogLevel, "log_json", cfg.LogJSON,
		"database", postgres.RedactURL(cfg.DatabaseURL))
	if cfg.DevTickets {
		log.Warn("TICKET_SIGNING_KEYS is not set: tickets are signed with the public development key; " +
			"anyone can forge a ticket with it, so set your own anywhere but on your own machine")
	}
	if cfg.DevSecret {
		log.Warn("PAYMENT_WEBHOOK_SECRET is not set: using the public development secret; "+
			"anyone can forge payments with it, so set your own anywhere but on your own machine",
			"secret", devWebhookSecret)
	}

	began := time.Now()
	if err := postgres.Migrate(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	log.Info("migrations applied", "took", time.Since(began).Round(time.Millisecond))

	pool, err := postgres.Connect(ctx, cfg.DatabaseURL, poolSize(cfg.Admission))
	if err != nil {
		return err
	}
	defer closePool(pool, log)
	store := postgres.NewStore(pool)
	store.SupportEmail = cfg.mailSite().Support

	if loadDemo {
		if err := loadDemoData(ctx, store, cfg.PublicURL, log); err != nil {
			return err
		}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m := metrics.New(reg)
	reg.MustRegister(&jobs.Collector{Read: store.JobBacklog, OnError: func(err error) {
		log.Warn("metrics: read the background jobs' backlog", "err", err)
	}})

	// Listen before anything runs in the background, so a busy port fails
	// the start at once.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	var metricsLn net.Listener
	if cfg.MetricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			return fmt.Errorf("listen for metrics: %w", err)
		}
	}

	// The background workers (sweeper, the live seat map) and jobs
	// outlive the signal: they stop after the drain, so requests in
	// flight still see them.
	workersCtx, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWorkers()
	sw := &sweeper.Sweeper{
		Store: store, Interval: sweepInterval, Batch: sweepBatch,
		Metrics: m, Log: log.With("component", "sweeper"),
	}
	// The payment provider, with the workers that need one: refunds, and
	// reconciliation (which asks it about every checkout opened, so a
	// payment whose webhook is lost still ends in a booking or a refund).
	// Sandbox Pay's pages are served by this binary, its webhooks sent by
	// its own job worker, server to server, to PUBLIC_URL.
	var sb *sandbox.Sandbox
	background := []func(context.Context){sw.Run}
	jobWorkers := river.NewWorkers()
	switch cfg.Payments {
	case PaymentsSandbox:
		sb = sandbox.New(pool, sandbox.Config{
			PublicURL: cfg.PublicURL, Secret: cfg.WebhookSecret, Log: log.With("component", "sandbox"),
		})
		// Its webhooks are jobs of the payments queue; those queued by a
		// build from before they were get theirs now.
		river.AddWorker(jobWorkers, &sandbox.WebhookWorker{Sandbox: sb})
		resumed, err := sb.Resume(ctx)
		if err != nil {
			return err
		}
		if resumed > 0 {
			log.Info("queued the jobs of pending sandbox webhooks", "webhooks", resumed)
		}
		river.AddWorker(jobWorkers, &refunds.Worker{Store: store, Provider: sb, Log: log.With("component", "refunds")})
		// The store inserts a payment check with every checkout, first due
		// the same delay as the worker's.
		store.PaymentCheckDelay = cfg.ReconcileDelay
		river.AddWorker(jobWorkers, &reconcile.Worker{
			Store: store, Provider: sb, Receiver: &boxoffice.Receiver{Store: store, Metrics: m},
			Delay: cfg.ReconcileDelay, Log: log.With("component", "reconcile"),
			// The last look at a hold's payments is when its grace ends, the
			// last moment a payment captured in time can still book it.
			Settle: max(reconcile.DefaultSettle, cfg.PaymentGrace),
		})
	default:
		log.Warn("PAYMENTS is not set: no payment provider, so every checkout is refused, " +
			"and refunds and reconciliation wait until one is configured (PAYMENTS=sandbox for development)")
	}
	// The live seat map: committed seat changes are announced in batches by
	// the notifier, heard by this instance's one listener connection and
	// fanned out by the hub to the websockets of its viewers.
	hub := live.NewHub(store.SeatStates, log.With("component", "live"))
	hub.Metrics = m
	listener := &live.Listener{
		DatabaseURL: cfg.DatabaseURL, Hub: hub, Log: log.With("component", "live"), Metrics: m,
		MinBackoff: 100 * time.Millisecond, MaxBackoff: 5 * time.Second,
	}
	// The waiting rooms: each instance steps every room that is on (one at
	// a time per room, by the room's lock), and its listener hears every
	// step's front and hands it to the pages waiting here.
	fronts := live.NewFronts()
	fronts.Seen, fronts.SeenEvery, fronts.Log = store.SeeTickets, frontsSeenEvery, log.With("component", "waitroom")
	listener.Fronts = fronts
	admit := &admitter.Worker{Store: store, TTL: cfg.AdmissionTTL, Interval: admitInterval, Log: log.With("component", "waitroom")}
	if cfg.QueueSecret == nil && public(cfg.PublicURL) {
		log.Warn("QUEUE_SECRET is not set: waiting-room tickets are signed with a key of this process, " +
			"so they do not survive a restart and other instances refuse them; set it (at least 16 random bytes, " +
			"the same on every instance) before a waiting room is used")
	}
	notifier := &live.Notifier{
		Flush: func(ctx context.Context, limit int) (int, error) {
			return store.AnnounceSeatChanges(ctx, live.Channel, limit)
		},
		Interval: announceInterval, Batch: announceBatch, Log: log.With("component", "live"),
		Vacuum: store.VacuumSeatEvents, VacuumEvery: announceVacuumEvery,
	}
	var workers sync.WaitGroup
	for _, run := range append(background, hub.Run, listener.Run, notifier.Run, admit.Run, fronts.Run) {
		workers.Go(func() { run(workersCtx) })
	}
	// The background jobs, on River, with a pool of their own: the
	// payments queue (refunds, reconciliation, Sandbox Pay's webhooks)
	// when there is a provider, the mail queue when mail can be sent. A
	// queue this instance does not work waits in the database for one that
	// does.
	queues := map[string]int{}
	if sb != nil {
		queues[jobs.QueuePayments] = paymentJobs
	}
	sender, err := mailSender(cfg, store, loadDemo, log)
	if err != nil {
		return err
	}
	_, devMailbox := sender.(mail.Mailbox)
	if sender != nil {
		queues[jobs.QueueMail] = mailJobs
		river.AddWorker(jobWorkers, &notify.Worker{Store: store, Sender: sender, Site: cfg.mailSite(), Log: log.With("component", "mail"), Counts: m})
	}
	jobsPool, err := postgres.Connect(ctx, cfg.DatabaseURL, jobsConns)
	if err != nil {
		return err
	}
	defer closePool(jobsPool, log)
	stopJobs, err := jobs.Start(workersCtx, jobsPool, jobs.Config{
		Workers: jobWorkers, Queues: queues, Log: log.With("component", "jobs"), RescueAfter: jobsRescueAfter,
	})
	if err != nil {
		return err
	}

	handler := server.New(web.Config{
		PublicURL:          cfg.PublicURL,
		HoldTTL:            cfg.HoldTTL,
		PaymentGrace:       cfg.PaymentGrace,
		MaxSeatsPerHold:    cfg.MaxSeatsPerHold,
		WebhookSecret:      cfg.WebhookSecret,
		RateLimits:         cfg.RateLimits,
		Sandbox:            sb,
		DevMailbox:         devMailbox,
		Live:               hub,
		SessionIdleTimeout: cfg.SessionIdleTimeout,

		TrustedProxies:           cfg.TrustedProxies,
		MaxHeldPerAddressPerShow: cfg.MaxHeldPerAddressPerShow,
		MaxHeldPerAddress:        cfg.MaxHeldPerAddress,
		Admission:                cfg.Admission,
		QueueKey:                 cfg.QueueSecret,
		Tickets:                  cfg.Tickets,
		AdmissionTTL:             cfg.AdmissionTTL,
		Fronts:                   fronts,
	}, store, m, log.With("component", "web"))
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		// Bodies are at most 64 KiB; the handlers give up after 10 s and
		// still need time to answer. net/http clears these deadlines when a
		// websocket takes the connection over.
		ReadTimeout:    30 * time.Second,
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.With("component", "http").Handler(), slog.LevelWarn),
	}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ln) }()
	// The metrics have a listener of their own, on a private address:
	// the public one never serves them.
	var metricsSrv *http.Server
	if metricsLn != nil {
		// A scrape's line is debug, as a probe's is.
		metricsSrv = &http.Server{
			Handler:           accesslog.Handler(log.With("component", "metrics"), server.Metrics(reg)),
			ReadHeaderTimeout: 5 * time.Second,
			WriteTimeout:      30 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.With("component", "metrics").Handler(), slog.LevelWarn),
		}
		go func() { served <- metricsSrv.Serve(metricsLn) }()
		log.Info("serving metrics", "addr", metricsLn.Addr().String(), "path", "/metrics")
	}
	log.Info("listening", "addr", ln.Addr().String(), "url", cfg.PublicURL)

	var runErr error
	select {
	case <-ctx.Done():
		stopSignals()
		log.Info("shutting down: no new connections; waiting for requests in flight", "up_to", drainTimeout)
	case err := <-served:
		runErr = fmt.Errorf("serve http: %w", err)
	}

	// Websockets are not requests Shutdown waits for: end them, and their
	// pages reconnect to another instance and resync.
	hub.CloseAll()
	drainCtx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := srv.Shutdown(drainCtx); err != nil {
		log.Warn("requests still in flight after the drain; closing their connections", "err", err)
		srv.Close()
	}
	// The metrics are served until the app has drained, so a scrape sees
	// the shutdown through.
	if metricsSrv != nil {
		if err := metricsSrv.Shutdown(drainCtx); err != nil {
			metricsSrv.Close()
		}
	}
	stopCtx, cancelStop := context.WithTimeout(context.Background(), jobsStopTimeout)
	if err := stopJobs(stopCtx); err != nil {
		log.Warn("background jobs still running at shutdown were cancelled; they run again elsewhere", "err", err)
	}
	cancelStop()
	stopWorkers()
	workers.Wait()
	log.Info("background workers stopped")
	return runErr
}

// backgroundConns are the connections the pool keeps beyond the requests'
// slots, one for each user of the pool outside them: the sweeper, the
// live seat map's hub and notifier (its listener has a connection of its
// own), the waiting rooms' admitter and the marking of open waiting pages,
// /readyz, and each background job being worked (River's own fetching has
// a pool apart).
const backgroundConns = 6 + paymentJobs + mailJobs

// poolSize is a connection for every request slot, and the background's:
// an admitted request never waits for a connection (pgx has no bound on
// that wait but the request's deadline). The slots keep it small: past a
// few connections per core, more concurrent transactions only queue on
// seat row locks.
func poolSize(a web.Admission) int32 {
	return int32(a.Slots() + backgroundConns)
}

// loadDemoData loads the demo catalogue into a database that has no cities,
// and says so when it does nothing.
func loadDemoData(ctx context.Context, store *postgres.Store, publicURL string, log *slog.Logger) error {
	cities, err := store.Cities(ctx)
	if err != nil {
		return err
	}
	if len(cities) > 0 {
		names := make([]string, len(cities))
		for i, c := range cities {
			names[i] = c.Slug
		}
		log.Info("demo data not loaded: the database already has cities", "cities", strings.Join(names, ","))
		return nil
	}
	began := time.Now()
	if err := demo.Load(ctx, store, began); err != nil {
		return err
	}
	log.Info("demo data loaded", "took", time.Since(began).Round(time.Millisecond),
		"try", publicURL+"/api/v1/shows?city=bengaluru")
	// Demo mode only: the demo admins' password is public anyway.
	log.Info("demo admins: sign in at "+publicURL+"/login",
		"platform_admin", demo.PlatformAdminEmail,
		"theatre_admin", demo.TheatreAdminEmail+" ("+demo.AdminTheatre+")",
		"box_office", demo.BoxOfficeEmail, "usher", demo.UsherEmail,
		"password", demo.AdminPassword)
	return nil
}

// closePool closes the pool, waiting a bounded time for connections still
// in use: shutting down must not hang on a stuck request.
func closePool(pool *pgxpool.Pool, log *slog.Logger) {
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		pool.Close()
	}()
	select {
	case <-closed:
		log.Info("database pool closed")
	case <-time.After(poolCloseTimeout):
		log.Warn("database connections still in use; exiting without waiting for them", "waited", poolCloseTimeout)
	}
}
