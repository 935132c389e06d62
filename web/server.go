// Package web is Marquee's HTTP server: the JSON API of API.md on Echo, with
// server-side sessions in Postgres. routes.go lists every route; each
// resource has its own file; errors.go decides how every error is answered.
package web

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"

	"github.com/marquee-tickets/marquee/internal/accounts"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/live"
	"github.com/marquee-tickets/marquee/internal/metrics"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/payment/sandbox"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Config is what the server needs to know beyond its store.
type Config struct {
	PublicURL       string        // e.g. http://localhost:8080; https => Secure cookies
	HoldTTL         time.Duration // 0 = 5 minutes
	MaxSeatsPerHold int           // 0 = 10
	WebhookSecret   []byte
	RateLimits      bool
	PasswordCost    int // bcrypt cost; 0 = bcrypt.DefaultCost (tests use 4)

	// Payments is the payment provider checkouts go to; nil means Sandbox.
	// With neither, checkouts are refused (payment_provider_unavailable).
	Payments payment.Provider
	// Sandbox, when set, has its pages served under /sandbox/.
	Sandbox *sandbox.Sandbox

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
}

const (
	defaultHoldTTL  = 5 * time.Minute
	defaultMaxSeats = 10

	// bodyLimit caps every request body; a larger one is answered 413.
	bodyLimit = "64KB"
	// requestTimeout bounds every request, so no client keeps seat locks
	// or a pool connection for long.
	requestTimeout = 10 * time.Second
)

// server holds what the handlers share. Handlers are its methods.
type server struct {
	origin   string // scheme://host[:port] of PublicURL: the only Origin of our pages
	cfg      Config
	store    *postgres.Store
	metrics  *metrics.Metrics
	sessions *scs.SessionManager
	accounts *accounts.Service
	office   *boxoffice.Service
	sandbox  *sandbox.Sandbox // nil: no sandbox pages
	log      *slog.Logger
	gc       sessionGC
}

// New returns the HTTP handler of the whole API. m may be nil (metrics are
// then kept on a private registry), gatherer is what /metrics serves (nil:
// the default gatherer), log may be nil.
func New(cfg Config, store *postgres.Store, m *metrics.Metrics, gatherer prometheus.Gatherer, log *slog.Logger) http.Handler {
	if cfg.HoldTTL <= 0 {
		cfg.HoldTTL = defaultHoldTTL
	}
	if cfg.MaxSeatsPerHold <= 0 {
		cfg.MaxSeatsPerHold = defaultMaxSeats
	}
	if cfg.LivePing <= 0 {
		cfg.LivePing = defaultLivePing
	}
	if cfg.PasswordCost == 0 {
		cfg.PasswordCost = bcrypt.DefaultCost
	}
	if m == nil {
		m = metrics.New(prometheus.NewRegistry())
	}
	if gatherer == nil {
		gatherer = prometheus.DefaultGatherer
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if len(cfg.WebhookSecret) == 0 {
		log.Warn("no payment webhook secret: every payment webhook will be refused")
	}
	if cfg.Payments == nil && cfg.Sandbox != nil {
		cfg.Payments = cfg.Sandbox
	}
	if cfg.Payments == nil {
		log.Warn("no payment provider: every checkout will be refused")
	}
	s := &server{
		origin:   origin(cfg.PublicURL),
		cfg:      cfg,
		store:    store,
		metrics:  m,
		sessions: newSessionManager(store, cfg.PublicURL),
		sandbox:  cfg.Sandbox,
		log:      log,
		office: &boxoffice.Service{
			Store: store, Payments: cfg.Payments, Metrics: m, HoldTTL: cfg.HoldTTL,
			MaxSeats: cfg.MaxSeatsPerHold, PublicURL: cfg.PublicURL, Log: log,
		},
	}
	var err error
	if s.accounts, err = accounts.New(store, auth.Hasher{Cost: cfg.PasswordCost}); err != nil {
		panic("web: " + err.Error()) // a wiring mistake
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	// The client's address keys the account rate limit. X-Forwarded-For is
	// believed only from a proxy on a loopback or private address (a load
	// balancer in front of us); anyone else could forge it to dodge limits.
	e.IPExtractor = echo.ExtractIPFromXFFHeader()
	e.Use(
		recoverPanics(),
		compress(),
		answerErrors,
		middleware.BodyLimit(bodyLimit),
		middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
			// A websocket lives as long as its page; it bounds each write instead.
			Skipper:      func(c echo.Context) bool { return c.Path() == liveRoute },
			Timeout:      requestTimeout,
			ErrorHandler: func(err error, _ echo.Context) error { return err },
		}),
	)
	s.routes(e, gatherer)
	return e
}

// recoverPanics turns a handler's panic into an internal error, logged with
// its stack by handleError and answered 500 without details.
func recoverPanics() echo.MiddlewareFunc {
	return middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			return &panicError{err: err, stack: stack}
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
