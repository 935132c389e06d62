// Package web is the server every handler package shares: its
// configuration (Config), what every request goes through (Server.Echo), and
// what handlers answer with: the error table (ErrorFor) and its answers
// (HandleError), JSON bodies, pages (Render, Meta) and their CSRF
// protection, rate limits. What has a life of its own is a package beside
// it: accesslog (request ids and the access log), session, admission,
// clientaddr, compress and readable. web/server assembles the handlers.
package web

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"

	"github.com/marquee-tickets/marquee/internal/accounts"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/logctx"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/ticket"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web/accesslog"
	"github.com/marquee-tickets/marquee/web/clientaddr"
	"github.com/marquee-tickets/marquee/web/compress"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/readable"
	"github.com/marquee-tickets/marquee/web/session"
)

// Config is what the server needs to know beyond its store.
type Config struct {
	PublicURL string // e.g. http://localhost:8080; https => Secure cookies
	// RequestTimeout bounds every request but the websockets; 0 =
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	HoldTTL        time.Duration // 0 = booking.DefaultHoldTTL
	// PaymentGrace: how long a hold with a checkout keeps its seats after
	// its deadline, for a payment captured in time; 0 = booking.DefaultPaymentGrace.
	PaymentGrace    time.Duration
	MaxSeatsPerHold int // 0 = booking.DefaultMaxSeatsPerHold
	WebhookSecret   []byte
	RateLimits      bool
	PasswordCost    int // bcrypt cost; 0 = bcrypt.DefaultCost (tests use 4)

	// TrustedProxies are the networks of the proxies in front of the
	// server. X-Forwarded-For is believed only from a peer in one of them;
	// with none, the TCP peer is the client and no header can say
	// otherwise. The client's address keys the rate limits and the seats
	// one address may hold.
	TrustedProxies []netip.Prefix
	// The most seats one client address may hold at once, whoever's
	// accounts hold them: on one show (0 =
	// booking.DefaultMaxHeldPerAddressPerShow) and over all shows (0 =
	// booking.DefaultMaxHeldPerAddress). Without RateLimits, no cap.
	MaxHeldPerAddressPerShow int
	MaxHeldPerAddress        int

	// Payments is the payment provider checkouts go to; nil means Sandbox.
	// With neither, checkouts are refused (payment_provider_unavailable).
	Payments payment.Provider
	// Sandbox, when set, has its pages served under /sandbox/.
	Sandbox *sandbox.Sandbox
	// DevMailbox serves the dev mailbox (/dev/mailbox): demo mode's mail,
	// kept rather than sent.
	DevMailbox bool

	// ReturnPatience is how long the payment return page says
	// "confirming" before it explains that the outcome will follow (and
	// where to see it). 0 = 1 minute.
	ReturnPatience time.Duration

	// Live, when set, serves the live seat map's websocket from this hub.
	Live *live.Hub
	// LivePing is how often each live seat map socket is pinged, keeping it
	// open through proxies; a viewer that does not answer within the
	// interval (or 10 seconds, if sooner) is let go. 0 = 25 seconds.
	LivePing time.Duration

	// SessionIdleTimeout ends a session unused for so long; 0 =
	// session.DefaultIdleTimeout. SessionLifetime ends it however busy;
	// 0 = session.DefaultLifetime.
	SessionIdleTimeout time.Duration
	SessionLifetime    time.Duration

	// Tickets sign the tickets' QR codes and verify them at the door; nil:
	// the public development key (ticket.DevKeys).
	Tickets *ticket.Keys
	// QueueKey signs waiting-room tickets; every instance of one app
	// needs the same. Empty: a key of this process's own, fine for one
	// instance. AdmissionTTL is how long an admission lasts unused; 0 =
	// waitroom.DefaultAdmissionTTL.
	QueueKey     []byte
	AdmissionTTL time.Duration
	// Fronts, when set, serves the waiting rooms' websockets.
	Fronts *live.Fronts

	// Admission bounds the requests of each kind served at once and how
	// long others may queue for a turn (see admission.go); a kind left
	// zero gets DefaultAdmission's for this machine's cores.
	Admission Admission
}

// The routes admission control knows by name (see gates.of).
const (
	StaticRoute  = "/static/*"
	HealthRoute  = "/healthz"
	ReadyRoute   = "/readyz"
	WebhookRoute = "/payments/webhook"
)

const (
	// LiveRoute is the live seat map's websocket: it lives as long as its
	// page, so no request deadline, and it compresses its own messages.
	LiveRoute = "/shows/:show_id/live"
	// QueueLiveRoute is a waiting room's websocket: the same, for the
	// queue page.
	QueueLiveRoute = "/shows/:show_id/queue/live"
	// ShowRoute, SeatMapRoute and SeatMapAPIRoute answer with a show's seat
	// map, which many viewers share: their handlers compress their own
	// answers, the seat map compressed once (see package compress).
	ShowRoute       = "/shows/:show_id"
	SeatMapRoute    = "/shows/:show_id/seatmap"
	SeatMapAPIRoute = "/api/v1/shows/:show_id/seats"
	// DefaultLivePing keeps live seat map connections alive through
	// proxies (most close idle ones after 30 to 60 seconds) and finds dead
	// ones.
	DefaultLivePing = 25 * time.Second

	// bodyLimit caps every request body but those of largeBodies and
	// PosterRoute; a larger one is answered 413.
	bodyLimit = "64KB"
	// PosterRoute takes a poster image as its body, of up to
	// admin.MaxPosterBytes: its handler sets that limit itself.
	PosterRoute = "/api/v1/admin/movies/:movie_id/poster"
	// PosterFormRoute takes the poster form: its file, of up to
	// admin.MaxPosterBytes, is checked by its handler, which tells a file
	// too large at its field with the rest of the form kept. Its body is
	// read to the end up to posterFormLimit, so that a photo straight off
	// a camera gets that answer too; past it the answer is a 413.
	PosterFormRoute = "/admin/movies/:movie_id/poster"
	// posterFormLimit is the largest poster form read. The form is parsed
	// as it comes in, keeping at most posterFormMemory of it in memory
	// (the rest in a temporary file the server removes after the answer).
	posterFormLimit  = 64 << 20
	posterFormMemory = 4 << 20
	// DefaultRequestTimeout bounds every request, so no client keeps seat
	// locks or a pool connection for long.
	DefaultRequestTimeout = 10 * time.Second
)

// largeBodies are the routes whose bodies may be larger than bodyLimit,
// with their own caps.
var largeBodies = map[string]string{
	// The layout editor's save and preview: a layout of admin.MaxSeats
	// seats as URL-encoded JSON is some 400 KB.
	"/admin/screens/:screen_id/seats":   "1MB",
	"/admin/screens/:screen_id/preview": "1MB",
}

// limitBodies caps every request's body: at its route's cap in largeBodies,
// else at bodyLimit. PosterRoute's handler caps its own; PosterFormRoute's
// form is parsed here (parseUpload).
func limitBodies() echo.MiddlewareFunc {
	def := middleware.BodyLimit(bodyLimit)
	own := map[string]echo.MiddlewareFunc{}
	for route, limit := range largeBodies {
		own[route] = middleware.BodyLimit(limit)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		capped := def(next)
		byRoute := make(map[string]echo.HandlerFunc, len(own))
		for route, mw := range own {
			byRoute[route] = mw(next)
		}
		return func(c echo.Context) error {
			switch c.Path() {
			case PosterRoute:
				return next(c)
			case PosterFormRoute:
				if err := parseUpload(c, posterFormLimit, posterFormMemory); err != nil {
					return err
				}
				return next(c)
			}
			if h, ok := byRoute[c.Path()]; ok {
				return h(c)
			}
			return capped(c)
		}
	}
}

// parseUpload parses a multipart form of up to limit bytes as it comes in,
// before any middleware asks for a field of it (the CSRF token), keeping
// at most inMemory of it in memory: every file is then the handler's to
// judge however large it is, up to limit. A body past limit is an
// *http.MaxBytesError (413).
func parseUpload(c echo.Context, limit, inMemory int64) error {
	req := c.Request()
	if req.ContentLength > limit {
		return &http.MaxBytesError{Limit: limit}
	}
	req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
	if err := req.ParseMultipartForm(inMemory); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return fmt.Errorf("read the form: %w", err)
	}
	return nil
}

// Server holds what the handlers share; each handler package embeds it.
type Server struct {
	Origin    string // scheme://host[:port] of PublicURL: the only Origin of our pages
	Config    Config
	Store     *postgres.Store
	Metrics   *metrics.Metrics
	Sessions  *session.Manager
	layout    *layoutCache
	Accounts  *accounts.Service
	BoxOffice *boxoffice.Service
	Rooms     *boxoffice.Rooms
	Admin     *admin.Service
	Log       *slog.Logger
	gates     *gates
}

// NewServer returns the shared server on store, with cfg's defaults filled
// in. m may be nil (metrics are then kept on a private registry), log may
// be nil.
func NewServer(cfg Config, store *postgres.Store, m *metrics.Metrics, log *slog.Logger) *Server {
	if cfg.HoldTTL <= 0 {
		cfg.HoldTTL = booking.DefaultHoldTTL
	}
	if cfg.PaymentGrace <= 0 {
		cfg.PaymentGrace = booking.DefaultPaymentGrace
	}
	if cfg.MaxSeatsPerHold <= 0 {
		cfg.MaxSeatsPerHold = booking.DefaultMaxSeatsPerHold
	}
	if cfg.MaxHeldPerAddressPerShow <= 0 {
		cfg.MaxHeldPerAddressPerShow = booking.DefaultMaxHeldPerAddressPerShow
	}
	if cfg.MaxHeldPerAddress <= 0 {
		cfg.MaxHeldPerAddress = booking.DefaultMaxHeldPerAddress
	}
	var caps booking.ClientCaps
	if cfg.RateLimits {
		caps = booking.ClientCaps{PerShow: cfg.MaxHeldPerAddressPerShow, Overall: cfg.MaxHeldPerAddress}
	}
	if cfg.LivePing <= 0 {
		cfg.LivePing = DefaultLivePing
	}
	if cfg.SessionIdleTimeout <= 0 {
		cfg.SessionIdleTimeout = session.DefaultIdleTimeout
	}
	if cfg.SessionLifetime <= 0 {
		cfg.SessionLifetime = session.DefaultLifetime
	}
	cfg.Admission = cfg.Admission.orDefault(DefaultAdmission(runtime.NumCPU()))
	if cfg.PasswordCost == 0 {
		cfg.PasswordCost = bcrypt.DefaultCost
	}
	if m == nil {
		m = metrics.New(prometheus.NewRegistry())
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// Every line logged with a request's context names the request.
	log = slog.New(logctx.NewHandler(log.Handler()))
	if len(cfg.WebhookSecret) == 0 {
		log.Warn("no payment webhook secret: every payment webhook will be refused")
	}
	if cfg.Payments == nil && cfg.Sandbox != nil {
		cfg.Payments = cfg.Sandbox
	}
	if cfg.Payments == nil {
		log.Warn("no payment provider: every checkout will be refused")
	}
	if cfg.AdmissionTTL <= 0 {
		cfg.AdmissionTTL = waitroom.DefaultAdmissionTTL
	}
	if cfg.Tickets == nil {
		cfg.Tickets = ticket.DevKeys()
	}
	if len(cfg.QueueKey) == 0 {
		cfg.QueueKey = make([]byte, 32)
		rand.Read(cfg.QueueKey)
	}
	signer, err := waitroom.NewSigner(cfg.QueueKey)
	if err != nil {
		panic("web: " + err.Error()) // configuration checks the key's length
	}
	rooms := &boxoffice.Rooms{Store: store, Signer: signer, AdmissionTTL: cfg.AdmissionTTL, Clock: store.Clock}
	if cfg.Fronts != nil {
		rooms.Front = cfg.Fronts.Last
	}
	s := &Server{
		Origin:  origin(cfg.PublicURL),
		Config:  cfg,
		Store:   store,
		Metrics: m,
		Sessions: session.New(store.SessionStore(), session.Options{
			PublicURL: cfg.PublicURL, Lifetime: cfg.SessionLifetime, IdleTimeout: cfg.SessionIdleTimeout,
			Now: appClock(store), DeleteExpired: store.DeleteExpiredSessions, Log: log,
		}),
		layout: newLayoutCache(store, layoutTTL, appClock(store)),
		Log:    log,
		gates:  newGates(cfg.Admission, m, time.Now),
		Admin:  &admin.Service{Store: store, Log: log, RoomChanged: rooms.Forget, Tickets: cfg.Tickets},
		BoxOffice: &boxoffice.Service{
			Store: store, Payments: cfg.Payments, Metrics: m, HoldTTL: cfg.HoldTTL, PaymentGrace: cfg.PaymentGrace,
			MaxSeats: cfg.MaxSeatsPerHold, Caps: caps, PublicURL: cfg.PublicURL, Log: log, Rooms: rooms,
		},
		Rooms: rooms,
	}
	if s.Accounts, err = accounts.New(store, auth.Hasher{Cost: cfg.PasswordCost}); err != nil {
		panic("web: " + err.Error()) // a wiring mistake
	}
	return s
}

// appClock is the store's clock for the decisions made here rather than in
// SQL (when a session expires, how old a cached header is): Store.Clock
// (tests move it), else this machine's.
func appClock(store *postgres.Store) func() time.Time {
	return func() time.Time {
		if store.Clock != nil {
			return store.Clock()
		}
		return time.Now()
	}
}

// Now is the time pages show and decide their display by: the store's
// clock when one is set (tests), else this machine's. What a hold or a
// payment decides is decided by the database's clock, under its locks.
func (s *Server) Now() time.Time {
	if s.Store.Clock != nil {
		return s.Store.Clock()
	}
	return time.Now()
}

// Echo returns an Echo with the server's error handler and the middleware
// every request goes through (request id and access log, panic recovery,
// compression, admission control, error answers, body limit, request
// deadline), for the routes to be added to.
func (s *Server) Echo() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Logger = echoLogger{s.Log}
	e.HTTPErrorHandler = s.HandleError
	// The client's address keys the rate limits and the held-seat caps:
	// see clientaddr.Extractor for whom X-Forwarded-For is believed from.
	e.IPExtractor = clientaddr.Extractor(s.Config.TrustedProxies)
	e.Use(
		accesslog.Middleware(accesslog.Config{
			Log:       s.Log,
			FromProxy: clientaddr.FromProxy(s.Config.TrustedProxies),
			User:      session.UserID,
			Quiet:     quiet,
		}),
		recoverPanics(),
		compress.Middleware(compress.Config{
			Skip: []string{LiveRoute, QueueLiveRoute},
			Own:  []string{ShowRoute, SeatMapRoute, SeatMapAPIRoute},
		}),
		// A request's deadline starts once it is admitted: its wait for a
		// turn has a bound of its own.
		s.admit,
		answerErrors,
		limitBodies(),
		middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
			// A websocket lives as long as its page; it bounds each write instead.
			Skipper:      func(c echo.Context) bool { return c.Path() == LiveRoute || c.Path() == QueueLiveRoute },
			Timeout:      s.requestTimeout(),
			ErrorHandler: func(err error, _ echo.Context) error { return err },
		}),
		readable.Requests(readable.Config{
			Headers:   []string{"Idempotency-Key", payment.SignatureHeader},
			SkipForms: []string{PosterRoute}, // its handler caps its body itself
		}),
	)
	return e
}

// quiet reports whether a request is one of those asked for all the time,
// the probes and the static files, whose access lines are debug.
func quiet(c echo.Context) bool {
	switch c.Path() {
	case HealthRoute, ReadyRoute, StaticRoute:
		return true
	}
	return false
}

// recoverPanics turns a handler's panic into an internal error, logged with
// its stack by handleError and answered 500 without details.
func recoverPanics() echo.MiddlewareFunc {
	return middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			return &problem.PanicError{Err: err, Stack: stack}
		},
	})
}

// origin returns the scheme://host[:port] of a URL, as browsers send it in
// the Origin header: without the scheme's default port.
func origin(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" {
		return strings.TrimRight(publicURL, "/")
	}
	host := u.Host
	switch u.Scheme {
	case "http":
		host = strings.TrimSuffix(host, ":80")
	case "https":
		host = strings.TrimSuffix(host, ":443")
	}
	return u.Scheme + "://" + host
}

// requestTimeout is how long a request may take.
func (s *Server) requestTimeout() time.Duration {
	if s.Config.RequestTimeout > 0 {
		return s.Config.RequestTimeout
	}
	return DefaultRequestTimeout
}
