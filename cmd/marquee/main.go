// Command marquee runs the Marquee web app: `marquee serve [--demo]`, and
// makes platform admins: `marquee admin create --email E`.
//
// main parses the configuration, wires the concrete types together and runs
// them; everything else lives in the packages it wires.
package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/marquee-tickets/marquee/internal/logctx"
)

const usage = `usage: marquee serve [--demo]
       marquee admin create --email E [--name N]
       marquee ticket-key

Commands:
  serve     apply database migrations, expire lapsed holds in the background
            and serve the web app and its JSON API until SIGINT or SIGTERM
  admin     create a platform admin account (marquee admin --help)
  ticket-key  print a new key to sign ticket codes with (TICKET_SIGNING_KEYS)

Flags of serve:
  --demo    load demo data (two cities, three theatres, a week of shows)
            when the database has no cities yet; does nothing otherwise

Environment:
  DATABASE_URL            Postgres connection string (required; make run provides one)
  ADDR                    listen address (default :8080)
  HOLD_TTL                hold lifetime, a Go duration from 1s to 1h (default 5m)
  PAYMENT_WEBHOOK_SECRET  secret of the sandbox provider's webhooks, at least
                          16 bytes (default: a development value, printed)
  TICKET_SIGNING_KEYS     base64 Ed25519 seeds signing the tickets' QR codes,
                          comma-separated: the first signs, the others still
                          verify tickets they signed (default: a public
                          development key, refused on a public site)
  PUBLIC_URL              the app's base URL, scheme://host[:port]
                          (default http://localhost:8080)
  MAX_SEATS_PER_HOLD      seat cap of one hold, 1 to 100 (default 10)
  RATE_LIMITS             on, or off for load tests and benchmarks (default on)
  SESSION_IDLE_TIMEOUT    sign out a session unused this long, 1m to 168h and at
                          least HOLD_TTL (default 2h)
  METRICS_ADDR            private address of GET /metrics, e.g. 127.0.0.1:9090
                          (default: metrics not served)
  PAYMENTS                the payment provider: sandbox (make run), or unset
                          for none: checkouts are then refused
  SANDBOX_IN_PRODUCTION   yes lets PAYMENTS=sandbox run on a public https
                          PUBLIC_URL (refused otherwise)
  LOG_LEVEL               the least level logged: debug, info, warn or error
                          (default info; debug adds the probes' and static
                          files' requests)
  LOG_FORMAT              text, or json for a JSON object a line (default text)
`

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run is the whole program behind main, returning its exit status: 0 done,
// 1 failed while running, 2 bad usage or configuration.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
	case "admin":
		return runAdmin(args[1:], getenv, os.Stdin, stdout, stderr)
	case "ticket-key":
		return runTicketKey(stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "marquee: unknown command %q\n\n%s", args[0], usage)
		return 2
	}

	fs := flag.NewFlagSet("marquee serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	demo := fs.Bool("demo", false, "load demo data into a database without cities")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "marquee serve: %v\n\n%s", err, usage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "marquee serve: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		return 2
	}

	cfg, err := loadConfig(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "marquee: invalid configuration:\n  %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return 2
	}

	log := newLogger(stderr, cfg)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, stop, cfg, *demo, log); err != nil {
		log.Error("marquee stopped", "err", err)
		return 1
	}
	return 0
}

// newLogger is the log of `marquee serve`: lines of cfg's format from cfg's
// level up, each carrying the attributes of its context (a request's id).
func newLogger(w io.Writer, cfg config) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.LogJSON {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(logctx.NewHandler(h))
}

// runTicketKey prints a new random ticket signing key: put it first in
// TICKET_SIGNING_KEYS, keeping the old ones after it until every ticket
// they signed has been used.
func runTicketKey(stdout, stderr io.Writer) int {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		fmt.Fprintf(stderr, "marquee ticket-key: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, base64.StdEncoding.EncodeToString(seed))
	return 0
}
