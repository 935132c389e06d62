package main

import (
	"net/netip"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admission"
)

const testDB = "postgres://postgres@127.0.0.1:5432/marquee?sslmode=disable"

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLoadConfig(t *testing.T) {
	defaults := config{
		DatabaseURL:     testDB,
		Addr:            ":8080",
		HoldTTL:         5 * time.Minute,
		WebhookSecret:   []byte(devWebhookSecret),
		DevSecret:       true,
		PublicURL:       "http://localhost:8080",
		MaxSeatsPerHold: 10,
		RateLimits:      true,
		ReconcileDelay:  10 * time.Second,
		PaymentGrace:    2 * time.Minute,

		MaxHeldPerAddressPerShow: 20,
		MaxHeldPerAddress:        40,
		SessionIdleTimeout:       2 * time.Hour,
		Admission:                web.DefaultAdmission(runtime.NumCPU()),
		AdmissionTTL:             5 * time.Minute,
	}
	with := func(change func(*config)) config {
		c := defaults
		change(&c)
		return c
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    config
		wantErr []string // substrings of the error; nil: no error
	}{
		{name: "defaults", env: map[string]string{"DATABASE_URL": testDB}, want: defaults},
		{name: "empty values mean defaults", env: map[string]string{
			"DATABASE_URL": testDB, "ADDR": "", "HOLD_TTL": "", "PUBLIC_URL": " ", "MAX_SEATS_PER_HOLD": "", "RATE_LIMITS": "",
		}, want: defaults},
		{name: "everything set", env: map[string]string{
			"DATABASE_URL":           "host=/tmp dbname=marquee",
			"ADDR":                   "127.0.0.1:18080",
			"HOLD_TTL":               "90s",
			"PAYMENT_WEBHOOK_SECRET": "0123456789abcdef0123",
			"TICKET_SIGNING_KEYS":    "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
			"PUBLIC_URL":             "https://tickets.example.com/",
			"MAX_SEATS_PER_HOLD":     "6",
			"RATE_LIMITS":            "off",
			"RECONCILE_DELAY":        "30s",
			"PAYMENT_GRACE":          "90s",
			"TRUSTED_PROXIES":        "10.0.0.0/8, 2001:db8::/32,192.0.2.7",

			"MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW": "6",
			"MAX_HELD_SEATS_PER_ADDRESS":          "12",
			"SESSION_IDLE_TIMEOUT":                "45m",
			"METRICS_ADDR":                        "127.0.0.1:9090",
			"PAYMENTS":                            "Sandbox",
			"SANDBOX_IN_PRODUCTION":               "yes",
			"READ_SLOTS":                          "12",
			"WRITE_SLOTS":                         "6",
			"WEBHOOK_SLOTS":                       "3",
			"MAX_QUEUE_WAIT":                      "750ms",
			"QUEUE_SECRET":                        "queue-secret-0123456789",
			"ADMISSION_TTL":                       "10m",
		}, want: config{
			DatabaseURL: "host=/tmp dbname=marquee", Addr: "127.0.0.1:18080", HoldTTL: 90 * time.Second,
			WebhookSecret: []byte("0123456789abcdef0123"), PublicURL: "https://tickets.example.com",
			MaxSeatsPerHold: 6, RateLimits: false, ReconcileDelay: 30 * time.Second, PaymentGrace: 90 * time.Second,
			TrustedProxies: []netip.Prefix{
				netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("192.0.2.7/32"),
			},
			MaxHeldPerAddressPerShow: 6, MaxHeldPerAddress: 12,
			SessionIdleTimeout: 45 * time.Minute, MetricsAddr: "127.0.0.1:9090", Payments: "sandbox",
			Admission: web.Admission{
				Reads:    web.Capacity{Slots: 12, Queue: 12 * 64, MaxWait: 750 * time.Millisecond},
				Writes:   web.Capacity{Slots: 6, Queue: 6 * 64, MaxWait: 750 * time.Millisecond},
				Webhooks: web.Capacity{Slots: 3, Queue: 3 * 64, MaxWait: admission.DefaultWebhookMaxWait},
			},
			QueueSecret: []byte("queue-secret-0123456789"), AdmissionTTL: 10 * time.Minute,
		}},
		{name: "TRUSTED_PROXIES with an IPv6 address and a trailing comma",
			env:  map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "::1,"},
			want: with(func(c *config) { c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("::1/128")} })},
		{name: "TRUSTED_PROXIES of commas alone is none", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": " , "},
			want: defaults},
		{name: "held-seat caps left unset rise to a larger MAX_SEATS_PER_HOLD",
			env:  map[string]string{"DATABASE_URL": testDB, "MAX_SEATS_PER_HOLD": "50"},
			want: with(func(c *config) { c.MaxSeatsPerHold, c.MaxHeldPerAddressPerShow, c.MaxHeldPerAddress = 50, 50, 50 })},
		{name: "MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW equal to one hold",
			env:  map[string]string{"DATABASE_URL": testDB, "MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW": "10", "MAX_HELD_SEATS_PER_ADDRESS": "10"},
			want: with(func(c *config) { c.MaxHeldPerAddressPerShow, c.MaxHeldPerAddress = 10, 10 })},
		{name: "RATE_LIMITS ON in capitals", env: map[string]string{"DATABASE_URL": testDB, "RATE_LIMITS": "ON"}, want: defaults},
		{name: "PUBLIC_URL loses its default port, as in an Origin header",
			env:  map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "HTTP://LocalHost:80"},
			want: with(func(c *config) { c.PublicURL = "http://localhost" })},
		{name: "PUBLIC_URL keeps another port",
			env:  map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "http://127.0.0.1:18080"},
			want: with(func(c *config) { c.PublicURL = "http://127.0.0.1:18080" })},
		{name: "PUBLIC_URL with an IPv6 host",
			env:  map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "http://[::1]:8080"},
			want: with(func(c *config) { c.PublicURL = "http://[::1]:8080" })},
		{name: "ADDR on port 0 (any free port)",
			env:  map[string]string{"DATABASE_URL": testDB, "ADDR": "localhost:0"},
			want: with(func(c *config) { c.Addr = "localhost:0" })},
		{name: "HOLD_TTL at its bounds", env: map[string]string{"DATABASE_URL": testDB, "HOLD_TTL": "1h"},
			want: with(func(c *config) { c.HoldTTL = time.Hour })},
		{name: "MAX_SEATS_PER_HOLD at its ceiling", env: map[string]string{"DATABASE_URL": testDB, "MAX_SEATS_PER_HOLD": "100"},
			want: with(func(c *config) { c.MaxSeatsPerHold, c.MaxHeldPerAddressPerShow, c.MaxHeldPerAddress = 100, 100, 100 })},

		{name: "DATABASE_URL missing", env: map[string]string{}, wantErr: []string{"DATABASE_URL is required"}},
		{name: "DATABASE_URL unparsable", env: map[string]string{"DATABASE_URL": "postgres://u:hunter22@db:notaport/x"},
			wantErr: []string{"DATABASE_URL"}},
		{name: "ADDR without a port", env: map[string]string{"DATABASE_URL": testDB, "ADDR": "localhost"},
			wantErr: []string{`ADDR="localhost"`}},
		{name: "ADDR with a bad port", env: map[string]string{"DATABASE_URL": testDB, "ADDR": ":http-alt"},
			wantErr: []string{`ADDR=":http-alt"`}},
		{name: "ADDR port too big", env: map[string]string{"DATABASE_URL": testDB, "ADDR": ":70000"},
			wantErr: []string{`ADDR=":70000"`}},
		{name: "HOLD_TTL not a duration", env: map[string]string{"DATABASE_URL": testDB, "HOLD_TTL": "abc"},
			wantErr: []string{`HOLD_TTL="abc": not a Go duration`}},
		{name: "HOLD_TTL without a unit", env: map[string]string{"DATABASE_URL": testDB, "HOLD_TTL": "300"},
			wantErr: []string{`HOLD_TTL="300"`}},
		{name: "HOLD_TTL zero", env: map[string]string{"DATABASE_URL": testDB, "HOLD_TTL": "0s"},
			wantErr: []string{`HOLD_TTL="0s": must be between 1s and 1h0m0s`}},
		{name: "HOLD_TTL negative", env: map[string]string{"DATABASE_URL": testDB, "HOLD_TTL": "-5m"},
			wantErr: []string{`HOLD_TTL="-5m"`}},
		{name: "HOLD_TTL over an hour", env: map[string]string{"DATABASE_URL": testDB, "HOLD_TTL": "61m"},
			wantErr: []string{`HOLD_TTL="61m"`}},
		{name: "QUEUE_SECRET too short", env: map[string]string{"DATABASE_URL": testDB, "QUEUE_SECRET": "short"},
			wantErr: []string{"QUEUE_SECRET: too short (5 bytes)"}},
		{name: "QUEUE_SECRET and ADMISSION_TTL", env: map[string]string{"DATABASE_URL": testDB,
			"QUEUE_SECRET": "0123456789abcdef0123", "ADMISSION_TTL": "90s"},
			want: with(func(c *config) { c.QueueSecret, c.AdmissionTTL = []byte("0123456789abcdef0123"), 90*time.Second })},
		{name: "ADMISSION_TTL under a minute", env: map[string]string{"DATABASE_URL": testDB, "ADMISSION_TTL": "30s"},
			wantErr: []string{`ADMISSION_TTL="30s": must be between 1m and 1h`}},
		{name: "ADMISSION_TTL not a duration", env: map[string]string{"DATABASE_URL": testDB, "ADMISSION_TTL": "5"},
			wantErr: []string{`ADMISSION_TTL="5": not a duration`}},
		{name: "PAYMENT_WEBHOOK_SECRET too short, and not echoed",
			env:     map[string]string{"DATABASE_URL": testDB, "PAYMENT_WEBHOOK_SECRET": "hunter22"},
			wantErr: []string{"PAYMENT_WEBHOOK_SECRET: too short (8 bytes)"}},
		{name: "PUBLIC_URL without a scheme", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "localhost:8080"},
			wantErr: []string{`PUBLIC_URL="localhost:8080": want http:// or https://`}},
		{name: "PUBLIC_URL host only", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "tickets.example.com"},
			wantErr: []string{`PUBLIC_URL="tickets.example.com"`}},
		{name: "PUBLIC_URL another scheme", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "ftp://example.com"},
			wantErr: []string{`PUBLIC_URL="ftp://example.com"`}},
		{name: "PUBLIC_URL without a host", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "http://"},
			wantErr: []string{`PUBLIC_URL="http://": no host`}},
		{name: "PUBLIC_URL with a path", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "https://example.com/marquee"},
			wantErr: []string{`PUBLIC_URL="https://example.com/marquee": want scheme://host[:port] only`}},
		{name: "PUBLIC_URL with a query", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "https://example.com/?a=1"},
			wantErr: []string{`PUBLIC_URL="https://example.com/?a=1"`}},
		{name: "PUBLIC_URL with credentials", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "https://u:p@example.com"},
			wantErr: []string{`no user or password`}},
		{name: "PUBLIC_URL with an empty port", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "http://example.com:"},
			wantErr: []string{`empty port`}},
		{name: "PUBLIC_URL with port 0", env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "http://example.com:0"},
			wantErr: []string{`port "0"`}},
		{name: "MAX_SEATS_PER_HOLD zero", env: map[string]string{"DATABASE_URL": testDB, "MAX_SEATS_PER_HOLD": "0"},
			wantErr: []string{`MAX_SEATS_PER_HOLD="0": must be between 1 and 100`}},
		{name: "MAX_SEATS_PER_HOLD over the table's limit", env: map[string]string{"DATABASE_URL": testDB, "MAX_SEATS_PER_HOLD": "101"},
			wantErr: []string{`MAX_SEATS_PER_HOLD="101"`}},
		{name: "MAX_SEATS_PER_HOLD not a number", env: map[string]string{"DATABASE_URL": testDB, "MAX_SEATS_PER_HOLD": "ten"},
			wantErr: []string{`MAX_SEATS_PER_HOLD="ten": not a whole number`}},
		{name: "RATE_LIMITS neither on nor off", env: map[string]string{"DATABASE_URL": testDB, "RATE_LIMITS": "yes"},
			wantErr: []string{`RATE_LIMITS="yes": must be on or off`}},
		{name: "PAYMENT_GRACE at its bounds", env: map[string]string{"DATABASE_URL": testDB, "PAYMENT_GRACE": "15m"},
			want: with(func(c *config) { c.PaymentGrace = 15 * time.Minute })},
		{name: "PAYMENT_GRACE not a duration", env: map[string]string{"DATABASE_URL": testDB, "PAYMENT_GRACE": "2"},
			wantErr: []string{`PAYMENT_GRACE="2": not a Go duration`}},
		{name: "PAYMENT_GRACE too short to wait for a webhook", env: map[string]string{"DATABASE_URL": testDB, "PAYMENT_GRACE": "5s"},
			wantErr: []string{`PAYMENT_GRACE="5s": must be between 10s and 15m0s`}},
		{name: "PAYMENT_GRACE too long to keep seats off sale", env: map[string]string{"DATABASE_URL": testDB, "PAYMENT_GRACE": "1h"},
			wantErr: []string{`PAYMENT_GRACE="1h": must be between 10s and 15m0s`}},
		{name: "RECONCILE_DELAY not a duration", env: map[string]string{"DATABASE_URL": testDB, "RECONCILE_DELAY": "soon"},
			wantErr: []string{`RECONCILE_DELAY="soon": not a Go duration`}},
		{name: "RECONCILE_DELAY under a second", env: map[string]string{"DATABASE_URL": testDB, "RECONCILE_DELAY": "500ms"},
			wantErr: []string{`RECONCILE_DELAY="500ms": must be between 1s and 10m0s`}},
		{name: "TRUSTED_PROXIES not a network", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "10.0.0.0/8,proxy.internal"},
			wantErr: []string{`TRUSTED_PROXIES="10.0.0.0/8,proxy.internal": "proxy.internal" is not a network`}},
		{name: "TRUSTED_PROXIES with a bad prefix length", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "10.0.0.0/33"},
			wantErr: []string{`"10.0.0.0/33" is not a network`}},
		{name: "TRUSTED_PROXIES with host bits set", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "192.168.1.10/24"},
			wantErr: []string{`"192.168.1.10/24" has bits set past /24: did you mean 192.168.1.0/24?`}},
		{name: "TRUSTED_PROXIES trusting everyone", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "0.0.0.0/0"},
			wantErr: []string{`"0.0.0.0/0" trusts every address`}},
		{name: "TRUSTED_PROXIES trusting every IPv6 address", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "::/0"},
			wantErr: []string{`"::/0" trusts every address`}},
		{name: "TRUSTED_PROXIES with a zone", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "fe80::1%eth0"},
			wantErr: []string{`"fe80::1%eth0": no zone allowed`}},
		{name: "TRUSTED_PROXIES with IPv4 written as IPv6", env: map[string]string{"DATABASE_URL": testDB, "TRUSTED_PROXIES": "::ffff:10.0.0.0/104"},
			wantErr: []string{`write an IPv4 network as IPv4`}},
		{name: "MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW zero is not no cap",
			env:     map[string]string{"DATABASE_URL": testDB, "MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW": "0"},
			wantErr: []string{`MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW="0": must be between MAX_SEATS_PER_HOLD (10) and 100000; RATE_LIMITS=off lifts the cap`}},
		{name: "MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW under one hold",
			env:     map[string]string{"DATABASE_URL": testDB, "MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW": "9"},
			wantErr: []string{`MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW="9"`}},
		{name: "MAX_HELD_SEATS_PER_ADDRESS under the per-show cap",
			env:     map[string]string{"DATABASE_URL": testDB, "MAX_HELD_SEATS_PER_ADDRESS": "19"},
			wantErr: []string{`MAX_HELD_SEATS_PER_ADDRESS="19": must be between MAX_HELD_SEATS_PER_ADDRESS_PER_SHOW (20) and 100000`}},
		{name: "MAX_HELD_SEATS_PER_ADDRESS zero", env: map[string]string{"DATABASE_URL": testDB, "MAX_HELD_SEATS_PER_ADDRESS": "0"},
			wantErr: []string{`MAX_HELD_SEATS_PER_ADDRESS="0"`}},
		{name: "MAX_HELD_SEATS_PER_ADDRESS not a number", env: map[string]string{"DATABASE_URL": testDB, "MAX_HELD_SEATS_PER_ADDRESS": "lots"},
			wantErr: []string{`MAX_HELD_SEATS_PER_ADDRESS="lots": not a whole number`}},
		{name: "SESSION_IDLE_TIMEOUT at its bounds", env: map[string]string{"DATABASE_URL": testDB, "SESSION_IDLE_TIMEOUT": "168h"},
			want: with(func(c *config) { c.SessionIdleTimeout = 7 * 24 * time.Hour })},
		{name: "SESSION_IDLE_TIMEOUT not a duration", env: map[string]string{"DATABASE_URL": testDB, "SESSION_IDLE_TIMEOUT": "2"},
			wantErr: []string{`SESSION_IDLE_TIMEOUT="2": not a Go duration`}},
		{name: "SESSION_IDLE_TIMEOUT under a minute", env: map[string]string{"DATABASE_URL": testDB, "SESSION_IDLE_TIMEOUT": "30s"},
			wantErr: []string{`SESSION_IDLE_TIMEOUT="30s": must be between 1m0s and 168h0m0s`}},
		{name: "SESSION_IDLE_TIMEOUT over the session's lifetime", env: map[string]string{"DATABASE_URL": testDB, "SESSION_IDLE_TIMEOUT": "169h"},
			wantErr: []string{`SESSION_IDLE_TIMEOUT="169h"`}},
		{name: "SESSION_IDLE_TIMEOUT shorter than a hold",
			env:     map[string]string{"DATABASE_URL": testDB, "SESSION_IDLE_TIMEOUT": "10m", "HOLD_TTL": "15m"},
			wantErr: []string{"SESSION_IDLE_TIMEOUT=10m0s is shorter than HOLD_TTL=15m0s"}},
		{name: "METRICS_ADDR without a port", env: map[string]string{"DATABASE_URL": testDB, "METRICS_ADDR": "localhost"},
			wantErr: []string{`METRICS_ADDR="localhost"`}},
		{name: "PAYMENTS=sandbox on the developer's machine", env: map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "sandbox"},
			want: with(func(c *config) { c.Payments = PaymentsSandbox })},
		{name: "PAYMENTS=sandbox over https on localhost is still development",
			env:  map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "sandbox", "PUBLIC_URL": "https://localhost:8443"},
			want: with(func(c *config) { c.Payments, c.PublicURL = PaymentsSandbox, "https://localhost:8443" })},
		{name: "PAYMENTS=sandbox over https on a loopback address",
			env:  map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "sandbox", "PUBLIC_URL": "https://127.0.0.1:8443"},
			want: with(func(c *config) { c.Payments, c.PublicURL = PaymentsSandbox, "https://127.0.0.1:8443" })},
		{name: "PAYMENTS=sandbox on a public site is refused, saying how to insist",
			env:     map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "sandbox", "PUBLIC_URL": "https://tickets.example.com"},
			wantErr: []string{"PAYMENTS=sandbox with PUBLIC_URL=https://tickets.example.com", "SANDBOX_IN_PRODUCTION=yes"}},
		{name: "PAYMENTS=sandbox on a public site with SANDBOX_IN_PRODUCTION=no",
			env:     map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "sandbox", "PUBLIC_URL": "https://tickets.example.com", "SANDBOX_IN_PRODUCTION": "no"},
			wantErr: []string{"SANDBOX_IN_PRODUCTION=yes"}},
		{name: "PAYMENTS=sandbox on a public site, insisted",
			env: map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "sandbox", "PUBLIC_URL": "https://staging.example.com", "SANDBOX_IN_PRODUCTION": "YES", "TICKET_SIGNING_KEYS": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
				"PAYMENT_WEBHOOK_SECRET": "0123456789abcdef"},
			want: with(func(c *config) {
				c.Payments, c.PublicURL, c.WebhookSecret, c.DevSecret = PaymentsSandbox, "https://staging.example.com", []byte("0123456789abcdef"), false
			})},
		{name: "no provider on a public site is allowed (checkouts are refused)",
			env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "https://tickets.example.com", "PAYMENT_WEBHOOK_SECRET": "0123456789abcdef", "TICKET_SIGNING_KEYS": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE="},
			want: with(func(c *config) {
				c.PublicURL, c.WebhookSecret, c.DevSecret = "https://tickets.example.com", []byte("0123456789abcdef"), false
			})},
		{name: "the public development secret on a public site is refused, saying what to set",
			env: map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "https://tickets.example.com"},
			wantErr: []string{"PAYMENT_WEBHOOK_SECRET is not set, and PUBLIC_URL=https://tickets.example.com is a public https site",
				"set PAYMENT_WEBHOOK_SECRET to at least 16 random bytes"}},
		{name: "the development secret is refused on a public sandbox site too, even insisted",
			env:     map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "sandbox", "PUBLIC_URL": "https://staging.example.com", "SANDBOX_IN_PRODUCTION": "yes"},
			wantErr: []string{"PAYMENT_WEBHOOK_SECRET is not set"}},
		{name: "the development secret over http on a public host is still development",
			env:  map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "http://tickets.example.com"},
			want: with(func(c *config) { c.PublicURL = "http://tickets.example.com" })},
		{name: "the development secret over https on localhost is still development",
			env:  map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "https://localhost:8443"},
			want: with(func(c *config) { c.PublicURL = "https://localhost:8443" })},
		{name: "slots at their bounds", env: map[string]string{"DATABASE_URL": testDB, "READ_SLOTS": "100", "WRITE_SLOTS": "1"},
			want: with(func(c *config) {
				c.Admission.Reads = admission.NewCapacity(100, admission.DefaultMaxWait)
				c.Admission.Writes = admission.NewCapacity(1, admission.DefaultMaxWait)
			})},
		{name: "READ_SLOTS zero", env: map[string]string{"DATABASE_URL": testDB, "READ_SLOTS": "0"},
			wantErr: []string{`READ_SLOTS="0": must be between 1 and 100`}},
		{name: "WRITE_SLOTS past what Postgres serves", env: map[string]string{"DATABASE_URL": testDB, "WRITE_SLOTS": "101"},
			wantErr: []string{`WRITE_SLOTS="101": must be between 1 and 100`}},
		{name: "WEBHOOK_SLOTS not a number", env: map[string]string{"DATABASE_URL": testDB, "WEBHOOK_SLOTS": "two"},
			wantErr: []string{`WEBHOOK_SLOTS="two": not a whole number`}},
		{name: "MAX_QUEUE_WAIT not a duration", env: map[string]string{"DATABASE_URL": testDB, "MAX_QUEUE_WAIT": "500"},
			wantErr: []string{`MAX_QUEUE_WAIT="500": not a Go duration`}},
		{name: "MAX_QUEUE_WAIT too short to queue at all", env: map[string]string{"DATABASE_URL": testDB, "MAX_QUEUE_WAIT": "1ms"},
			wantErr: []string{`MAX_QUEUE_WAIT="1ms": must be between 10ms and 10s`}},
		{name: "MAX_QUEUE_WAIT as long as a deadline", env: map[string]string{"DATABASE_URL": testDB, "MAX_QUEUE_WAIT": "11s"},
			wantErr: []string{`MAX_QUEUE_WAIT="11s": must be between 10ms and 10s`}},
		{name: "PAYMENTS unknown", env: map[string]string{"DATABASE_URL": testDB, "PAYMENTS": "stripe"},
			wantErr: []string{`PAYMENTS="stripe": must be sandbox`}},
		{name: "SANDBOX_IN_PRODUCTION neither yes nor no", env: map[string]string{"DATABASE_URL": testDB, "SANDBOX_IN_PRODUCTION": "true"},
			wantErr: []string{`SANDBOX_IN_PRODUCTION="true": must be yes or no`}},
		{name: "mail through SMTP", env: map[string]string{"DATABASE_URL": testDB, "SMTP_URL": "smtps://tickets:hunter22@smtp.example.com",
			"MAIL_FROM": "Marquee <tickets@example.com>", "SUPPORT_EMAIL": "help@example.com"},
			want: with(func(c *config) {
				c.SMTPURL, c.MailFrom, c.SupportEmail = "smtps://tickets:hunter22@smtp.example.com", "Marquee <tickets@example.com>", "help@example.com"
			})},
		{name: "SMTP_URL without MAIL_FROM", env: map[string]string{"DATABASE_URL": testDB, "SMTP_URL": "smtp://smtp.example.com"},
			wantErr: []string{"MAIL_FROM is required with SMTP_URL"}},
		{name: "SMTP_URL of another scheme", env: map[string]string{"DATABASE_URL": testDB, "SMTP_URL": "http://u:hunter22@smtp.example.com", "MAIL_FROM": "t@example.com"},
			wantErr: []string{`SMTP_URL: scheme "http": use smtp:// or smtps://`}},
		{name: "SMTP_URL with an unknown TLS", env: map[string]string{"DATABASE_URL": testDB, "SMTP_URL": "smtp://u:hunter22@smtp.example.com?tls=maybe", "MAIL_FROM": "t@example.com"},
			wantErr: []string{`SMTP_URL: tls="maybe": use required, opportunistic or none`}},
		{name: "MAIL_FROM and SUPPORT_EMAIL not addresses", env: map[string]string{"DATABASE_URL": testDB, "MAIL_FROM": "tickets", "SUPPORT_EMAIL": "help at example"},
			wantErr: []string{`MAIL_FROM="tickets": not an e-mail address`, `SUPPORT_EMAIL="help at example": not an e-mail address`}},
		{name: "every problem at once", env: map[string]string{
			"HOLD_TTL": "abc", "MAX_SEATS_PER_HOLD": "0", "PUBLIC_URL": "localhost", "RATE_LIMITS": "maybe",
			"TRUSTED_PROXIES": "nope", "MAX_HELD_SEATS_PER_ADDRESS": "-1",
		}, wantErr: []string{"DATABASE_URL", "HOLD_TTL", "MAX_SEATS_PER_HOLD", "PUBLIC_URL", "RATE_LIMITS",
			"TRUSTED_PROXIES", "MAX_HELD_SEATS_PER_ADDRESS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadConfig(env(tt.env))
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				// The ticket keys are checked on their own below: the
				// development key when none is set, the one set otherwise.
				if _, set := tt.env["TICKET_SIGNING_KEYS"]; got.Tickets == nil || got.DevTickets == set {
					t.Errorf("ticket keys %v, development key %v, with TICKET_SIGNING_KEYS set: %v", got.Tickets, got.DevTickets, set)
				}
				got.Tickets, got.DevTickets = nil, false
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("config\n got %+v\nwant %+v", got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, config %+v", got)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "hunter22") {
				t.Errorf("error %q reveals a secret", err)
			}
		})
	}
}

// Mail comes from MAIL_FROM, or without it from tickets@ the public host;
// customer service is SUPPORT_EMAIL, or the sender.
func TestMailSite(t *testing.T) {
	for _, tt := range []struct {
		env           map[string]string
		from, support string
	}{
		{map[string]string{"DATABASE_URL": testDB}, "tickets@localhost", "tickets@localhost"},
		{map[string]string{"DATABASE_URL": testDB, "PUBLIC_URL": "http://tickets.example.com"}, "tickets@tickets.example.com", "tickets@tickets.example.com"},
		{map[string]string{"DATABASE_URL": testDB, "MAIL_FROM": "Marquee <Hello@Example.com>", "SUPPORT_EMAIL": "Help <HELP@example.com>"}, "Hello@Example.com", "help@example.com"},
	} {
		cfg, err := loadConfig(env(tt.env))
		if err != nil {
			t.Fatal(err)
		}
		if site := cfg.mailSite(); site.From.Address != tt.from || site.Support != tt.support {
			t.Errorf("%v: from %q support %q, want %q and %q", tt.env, site.From.Address, site.Support, tt.from, tt.support)
		}
	}
}
