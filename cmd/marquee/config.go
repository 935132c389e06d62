package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/reconcile"
	"github.com/marquee-tickets/marquee/internal/ticket"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admission"
	"github.com/marquee-tickets/marquee/web/session"
)

// config is the environment of `marquee serve`, checked.
type config struct {
	DatabaseURL     string
	Addr            string
	HoldTTL         time.Duration
	WebhookSecret   []byte
	DevSecret       bool // WebhookSecret is devWebhookSecret: say so loudly
	PublicURL       string
	MaxSeatsPerHold int
	RateLimits      bool
	// PaymentGrace is how long a hold a checkout was opened for keeps its
	// seats after its deadline, so that a payment captured before the
	// deadline whose report comes late still books it.
	PaymentGrace time.Duration
	// ReconcileDelay is how long after a checkout opens the payment
	// provider is first asked how paying went, if no webhook said so.
	ReconcileDelay time.Duration
	// TrustedProxies are the networks whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// The most seats one client address may hold at once, on one show and
	// over all shows (RATE_LIMITS=off lifts both).
	MaxHeldPerAddressPerShow int
	MaxHeldPerAddress        int
	// SessionIdleTimeout ends a session nobody has used for so long.
	SessionIdleTimeout time.Duration
	// MetricsAddr is where /metrics is served, apart from the app; ""
	// serves none.
	MetricsAddr string
	// Payments is the payment provider: "" (none: checkouts are refused)
	// or PaymentsSandbox.
	Payments string
	// Admission is how many requests of each kind are served at once and
	// how long others may wait for a turn; the pool is sized from it.
	Admission web.Admission
	// QueueSecret signs waiting-room tickets (nil: a key of this
	// process's own); AdmissionTTL is how long an admission from a
	// waiting room lasts unused.
	QueueSecret  []byte
	AdmissionTTL time.Duration
	// LogLevel is the least level logged; LogJSON logs a JSON object a
	// line rather than text.
	LogLevel slog.Level
	LogJSON  bool
	// SMTPURL is the SMTP server mail is sent through (SMTP_URL, checked
	// by mail.ParseSMTP); "": none, and mail waits in its queue, or goes
	// to the dev mailbox in demo mode. MailFrom is the address mail is
	// sent from (MAIL_FROM; without SMTP, tickets@ the public host),
	// SupportEmail customer service's (SUPPORT_EMAIL; by default
	// MailFrom's address).
	SMTPURL      string
	MailFrom     string
	SupportEmail string
	// Tickets sign ticket codes (TICKET_SIGNING_KEYS: base64 Ed25519 seeds,
	// the signing one first, older ones after it still verifying the
	// tickets they signed); DevTickets: none were given, and the public
	// development key signs.
	Tickets    *ticket.Keys
	DevTickets bool
}

// PaymentsSandbox is PAYMENTS=sandbox: Sandbox Pay, served by this binary,
// takes no money. Development, tests and demos only.
const PaymentsSandbox = "sandbox"

// devWebhookSecret signs sandbox webhooks when PAYMENT_WEBHOOK_SECRET is not
// set. It is public (it is in this file and printed at start-up), so anyone
// can forge a payment with it: development only.
const devWebhookSecret = "marquee-dev-webhook-secret-not-for-production"

const (
	minHoldTTL       = time.Second
	maxHoldTTL       = time.Hour
	maxSeatsCeiling  = 100 // the holds table allows at most 100 seats a hold
	minWebhookSecret = 16
	minReconcile     = time.Second
	// A payment grace shorter than a webhook's usual delay would refund
	// payments made in time; a long one keeps unpaid seats off sale.
	minPaymentGrace = 10 * time.Second
	maxPaymentGrace = 15 * time.Minute
	maxReconcile    = 10 * time.Minute
	maxHeldCeiling  = 100000 // seats held from one address: more is no cap at all
	minSessionIdle  = time.Minute
	// Each slot may hold a database connection: past Postgres's default
	// max_connections, a crowd would fail to connect rather than queue.
	maxSlots     = 100
	minQueueWait = 10 * time.Millisecond
	maxQueueWait = 10 * time.Second
)

// loadConfig reads the configuration through getenv (os.Getenv in main),
// applying defaults to unset or empty variables. The error names every
// invalid variable, never echoing a secret.
func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		Addr:            ":8080",
		HoldTTL:         booking.DefaultHoldTTL,
		PublicURL:       "http://localhost:8080",
		MaxSeatsPerHold: booking.DefaultMaxSeatsPerHold,
		RateLimits:      true,
		ReconcileDelay:  reconcile.DefaultDelay,
		PaymentGrace:    booking.DefaultPaymentGrace,

		MaxHeldPerAddressPerShow: booking.DefaultMaxHeldPerAddressPerShow,
		MaxHeldPerAddress:        booking.DefaultMaxHeldPerAddress,
		SessionIdleTimeout:       session.DefaultIdleTimeout,
		Admission:                web.DefaultAdmission(runtime.NumCPU()),
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }

	cfg.DatabaseURL = get("DATABASE_URL")
	if cfg.DatabaseURL == "" {
		bad("DATABASE_URL is required (a Postgres URL; `make run` provides one)")
	} else if _, err := pgx.ParseConfig(cfg.DatabaseURL); err != nil {
		// pgx leaves the password out of its parse errors.
		bad("DATABASE_URL: %v", err)
	}

	if v := get("ADDR"); v != "" {
		if err := checkAddr(v); err != nil {
			bad("ADDR=%q: %v", v, err)
		}
		cfg.Addr = v
	}

	if v := get("HOLD_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			bad("HOLD_TTL=%q: not a Go duration (e.g. 5m, 90s)", v)
		case d < minHoldTTL || d > maxHoldTTL:
			bad("HOLD_TTL=%q: must be between %v and %v", v, minHoldTTL, maxHoldTTL)
		default:
			cfg.HoldTTL = d
		}
	}

	// Taken verbatim: whitespace may be part of a secret.
	if v := getenv("PAYMENT_WEBHOOK_SECRET"); v != "" {
		if len(v) < minWebhookSecret {
			bad("PAYMENT_WEBHOOK_SECRET: too short (%d bytes), use at least %d random bytes", len(v), minWebhookSecret)
		}
		cfg.WebhookSecret = []byte(v)
	} else {
		cfg.WebhookSecret, cfg.DevSecret = []byte(devWebhookSecret), true
	}

	if v := get("TICKET_SIGNING_KEYS"); v != "" {
		keys, err := ticket.ParseKeys(v)
		if err != nil {
			bad("TICKET_SIGNING_KEYS: %v (a comma-separated list of base64 32-byte seeds: `marquee ticket-key` makes one)", err)
		}
		cfg.Tickets = keys
	} else {
		cfg.Tickets, cfg.DevTickets = ticket.DevKeys(), true
	}

	if v := getenv("QUEUE_SECRET"); v != "" {
		if len(v) < minWebhookSecret {
			bad("QUEUE_SECRET: too short (%d bytes), use at least %d random bytes", len(v), minWebhookSecret)
		}
		cfg.QueueSecret = []byte(v)
	}
	cfg.AdmissionTTL = waitroom.DefaultAdmissionTTL
	if v := get("ADMISSION_TTL"); v != "" {
		switch d, err := time.ParseDuration(v); {
		case err != nil:
			bad("ADMISSION_TTL=%q: not a duration like 5m", v)
		case d < time.Minute || d > time.Hour:
			bad("ADMISSION_TTL=%q: must be between 1m and 1h", v)
		default:
			cfg.AdmissionTTL = d
		}
	}

	if v := get("PUBLIC_URL"); v != "" {
		u, err := publicURL(v)
		if err != nil {
			bad("PUBLIC_URL=%q: %v", v, err)
		}
		cfg.PublicURL = u
	}

	if v := get("MAX_SEATS_PER_HOLD"); v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			bad("MAX_SEATS_PER_HOLD=%q: not a whole number", v)
		case n < 1 || n > maxSeatsCeiling:
			bad("MAX_SEATS_PER_HOLD=%q: must be between 1 and %d", v, maxSeatsCeiling)
		default:
			cfg.MaxSeatsPerHold = n
		}
	}

	if v := get("RATE_LIMITS"); v != "" {
		switch strings.ToLower(v) {
		case "on":
			cfg.RateLimits = true
		case "off":
			cfg.RateLimits = false
		default:
			bad("RATE_LIMITS=%q: must be on or off", v)
		}
	}

	if v := get("PAYMENT_GRACE"); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			bad("PAYMENT_GRACE=%q: not a Go duration (e.g. 2m, 90s)", v)
		case d < minPaymentGrace || d > maxPaymentGrace:
			bad("PAYMENT_GRACE=%q: must be between %v and %v", v, minPaymentGrace, maxPaymentGrace)
		default:
			cfg.PaymentGrace = d
		}
	}

	if v := get("RECONCILE_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			bad("RECONCILE_DELAY=%q: not a Go duration (e.g. 10s, 1m)", v)
		case d < minReconcile || d > maxReconcile:
			bad("RECONCILE_DELAY=%q: must be between %v and %v", v, minReconcile, maxReconcile)
		default:
			cfg.ReconcileDelay = d
		}
	}

	if v := get("TRUSTED_PROXIES"); v != "" {
		proxies, err := trustedProxies(v)
		if err != nil {
			bad("TRUSTED_PROXIES=%q: %v", v, err)
		}
		cfg.TrustedProxies = proxies
	}

	// The caps are checked against MAX_SEATS_PER_HOLD, read above: under
	// it, one full hold would be refused from every address.
	heldCap := func(name string, least int, leastName string) (int, bool) {
		v := get(name)
		if v == "" {
			return 0, false
		}
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			bad("%s=%q: not a whole number", name, v)
		case n < least || n > maxHeldCeiling:
			bad("%s=%q: must be between %s (%d) and %d; RATE_LIMITS=off lifts the cap", name, v, leastName, least, maxHeldCeiling)
		default:
			return n, true
		}
		return 0, false
	}
	// A cap left unset rises to what it is checked against.
	if n, ok := heldCap("MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW", cfg.MaxSeatsPerHold, "MAX_SEATS_PER_HOLD"); ok {
		cfg.MaxHeldPerAddressPerShow = n
	} else {
		cfg.MaxHeldPerAddressPerShow = max(cfg.MaxHeldPerAddressPerShow, cfg.MaxSeatsPerHold)
	}
	if n, ok := heldCap("MAX_HELD_SEATS_PER_ADDRESS", cfg.MaxHeldPerAddressPerShow, "MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW"); ok {
		cfg.MaxHeldPerAddress = n
	} else {
		cfg.MaxHeldPerAddress = max(cfg.MaxHeldPerAddress, cfg.MaxHeldPerAddressPerShow)
	}

	if v := get("SESSION_IDLE_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			bad("SESSION_IDLE_TIMEOUT=%q: not a Go duration (e.g. 2h, 30m)", v)
		case d < minSessionIdle || d > session.DefaultLifetime:
			bad("SESSION_IDLE_TIMEOUT=%q: must be between %v and %v (the longest a session lasts)", v, minSessionIdle, session.DefaultLifetime)
		default:
			cfg.SessionIdleTimeout = d
		}
	}
	// A shopper paying on the provider's page makes no request here for
	// up to HOLD_TTL: they must come back signed in.
	if cfg.SessionIdleTimeout < cfg.HoldTTL {
		bad("SESSION_IDLE_TIMEOUT=%v is shorter than HOLD_TTL=%v: a moviegoer paying for a hold would come back signed out",
			cfg.SessionIdleTimeout, cfg.HoldTTL)
	}

	if v := get("METRICS_ADDR"); v != "" {
		if err := checkAddr(v); err != nil {
			bad("METRICS_ADDR=%q: %v", v, err)
		}
		cfg.MetricsAddr = v
	}

	// The wait first: the slots keep it.
	if v := get("MAX_QUEUE_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		switch {
		case err != nil:
			bad("MAX_QUEUE_WAIT=%q: not a Go duration (e.g. 500ms, 1s)", v)
		case d < minQueueWait || d > maxQueueWait:
			bad("MAX_QUEUE_WAIT=%q: must be between %v and %v", v, minQueueWait, maxQueueWait)
		default:
			cfg.Admission.Reads.MaxWait, cfg.Admission.Writes.MaxWait = d, d
		}
	}
	for _, kind := range []struct {
		name string
		c    *web.Capacity
	}{{"READ_SLOTS", &cfg.Admission.Reads}, {"WRITE_SLOTS", &cfg.Admission.Writes}, {"WEBHOOK_SLOTS", &cfg.Admission.Webhooks}} {
		v := get(kind.name)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			bad("%s=%q: not a whole number", kind.name, v)
		case n < 1 || n > maxSlots:
			bad("%s=%q: must be between 1 and %d", kind.name, v, maxSlots)
		default:
			*kind.c = admission.NewCapacity(n, kind.c.MaxWait)
		}
	}

	switch v := strings.ToLower(get("PAYMENTS")); v {
	case "", PaymentsSandbox:
		cfg.Payments = v
	default:
		bad("PAYMENTS=%q: must be sandbox, or unset for no payment provider (checkouts are then refused)", v)
	}
	inProduction := false
	switch v := strings.ToLower(get("SANDBOX_IN_PRODUCTION")); v {
	case "", "no":
	case "yes":
		inProduction = true
	default:
		bad("SANDBOX_IN_PRODUCTION=%q: must be yes or no", v)
	}
	if cfg.Payments == PaymentsSandbox && !inProduction && public(cfg.PublicURL) {
		bad("PAYMENTS=sandbox with PUBLIC_URL=%s: Sandbox Pay books tickets without taking any money, "+
			"so it is refused on a public https site; leave PAYMENTS unset (checkouts are then refused), "+
			"or set SANDBOX_IN_PRODUCTION=yes if this really is a demo or staging site", cfg.PublicURL)
	}

	// The development secret is in this repository: on a public site,
	// anyone could sign a webhook with it and book seats without paying.
	if cfg.DevSecret && public(cfg.PublicURL) {
		bad("PAYMENT_WEBHOOK_SECRET is not set, and PUBLIC_URL=%s is a public https site: "+
			"the development secret is public, so anyone could forge a payment with it; "+
			"set PAYMENT_WEBHOOK_SECRET to at least %d random bytes (the secret your payment provider signs webhooks with)",
			cfg.PublicURL, minWebhookSecret)
	}

	// Anyone can sign a ticket with the development key: at a public site's
	// door, forged tickets would be admitted.
	if cfg.DevTickets && public(cfg.PublicURL) {
		bad("TICKET_SIGNING_KEYS is not set, and PUBLIC_URL=%s is a public https site: "+
			"the development ticket key is public, so anyone could forge a ticket; "+
			"set TICKET_SIGNING_KEYS (`marquee ticket-key` makes a key)", cfg.PublicURL)
	}

	if v := get("LOG_LEVEL"); v != "" {
		level, ok := logLevels[strings.ToLower(v)]
		if !ok {
			bad("LOG_LEVEL=%q: must be debug, info, warn or error", v)
		}
		cfg.LogLevel = level
	}
	switch v := get("LOG_FORMAT"); strings.ToLower(v) {
	case "", "text":
	case "json":
		cfg.LogJSON = true
	default:
		bad("LOG_FORMAT=%q: must be text or json", v)
	}

	cfg.loadMail(get, bad)

	if len(errs) > 0 {
		return config{}, errors.Join(errs...)
	}
	return cfg, nil
}

// logLevels are the values of LOG_LEVEL.
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
}

// trustedProxies reads a comma-separated list of networks (10.0.0.0/8) or
// addresses (one proxy's, 192.0.2.7), naming the first entry it cannot use.
func trustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for entry := range strings.SplitSeq(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if strings.Contains(entry, "%") {
			return nil, fmt.Errorf("%q: no zone allowed", entry)
		}
		p, err := netip.ParsePrefix(entry)
		if err != nil && !strings.Contains(entry, "/") {
			var a netip.Addr
			if a, err = netip.ParseAddr(entry); err == nil {
				p = netip.PrefixFrom(a, a.BitLen())
			}
		}
		switch {
		case err != nil:
			return nil, fmt.Errorf("%q is not a network (10.0.0.0/8) or an address (192.0.2.7)", entry)
		case p.Addr().Is4In6():
			return nil, fmt.Errorf("%q: write an IPv4 network as IPv4 (10.0.0.0/8)", entry)
		case p != p.Masked():
			return nil, fmt.Errorf("%q has bits set past /%d: did you mean %s?", entry, p.Bits(), p.Masked())
		case p.Bits() == 0:
			return nil, fmt.Errorf("%q trusts every address: anyone could forge X-Forwarded-For", entry)
		}
		out = append(out, p)
	}
	return out, nil
}

// public reports whether publicURL is a production address: https, and a
// host other than localhost or a loopback address.
func public(publicURL string) bool {
	u, err := url.Parse(publicURL)
	if err != nil || u.Scheme != "https" {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return false
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return false
	}
	return true
}

// checkAddr accepts host:port or :port with a numeric port.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port or :port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	return nil
}

// publicURL checks the app's base URL and returns it as scheme://host[:port],
// the form browsers send as Origin: no trailing slash, no default port.
func publicURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", errors.New("want http:// or https:// followed by a host, e.g. http://localhost:8080")
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", errors.New("no host")
	}
	if u.User != nil {
		return "", errors.New("no user or password allowed")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", errors.New("want scheme://host[:port] only: Marquee is served from the root of its host")
	}
	if strings.HasSuffix(u.Host, ":") {
		return "", errors.New("empty port")
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("port %q is not a number from 1 to 65535", port)
		}
		if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
			host = strings.TrimSuffix(host, ":"+port)
		}
	}
	return scheme + "://" + host, nil
}
