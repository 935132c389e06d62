package main

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/mail/mailtest"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestMailWaitsForSMTP runs the app as in production without SMTP_URL: it
// says at start that no e-mail is sent, and a booking's ticket mail waits
// in its queue, neither sent nor given up. An instance started with
// SMTP_URL then sends it, once, to the moviegoer.
func TestMailWaitsForSMTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Two apps, one after the other (the first is killed once the second
	// listens): each one's pool, small (killSlots), the jobs' pool and the
	// live seat map's listener; and the test's own pool.
	pgtest.Reserve(t, 2*(killSlots+backgroundConns+jobsConns+1)+3)
	k, email := newRefundKill(t)
	slots := []string{"READ_SLOTS=2", "WRITE_SLOTS=2", "WEBHOOK_SLOTS=1"}

	silent := startAppFor(t, t, k.url, append(slots, "METRICS_ADDR=127.0.0.1:0")...)
	if silent.log.count("SMTP_URL is not set: no e-mail is sent") != 1 {
		t.Fatalf("the app without SMTP_URL did not say so at start:\n%s", silent.log.tail(30))
	}
	k.app = silent
	k.signIn(t, email)
	bookingID, _ := k.book(t, "A1")

	// The payment's own jobs run here (the sandbox's, the provider's
	// check); the ticket's does not, however long it waits.
	time.Sleep(2 * time.Second)
	var state string
	var attempt int
	if err := k.check.QueryRow(ctx, `
		SELECT j.state::text, j.attempt FROM river_job j
		  JOIN mails m ON m.id = (j.args->>'mail_id')::bigint
		 WHERE j.kind = 'mail' AND m.booking_id = $1 AND m.status = 'QUEUED'`, bookingID).Scan(&state, &attempt); err != nil {
		t.Fatalf("the ticket mail's job: %v", err)
	}
	if state != "available" || attempt != 0 {
		t.Fatalf("the ticket mail's job is %s after %d attempts without SMTP, want available and untried", state, attempt)
	}
	// The operator sees it wait in the metrics.
	scrape := scrapeMetrics(t, silent)
	if !strings.Contains(scrape, `marquee_jobs{queue="mail",state="available"} 1`+"\n") ||
		!regexp.MustCompile(`(?m)^marquee_jobs_oldest_available_seconds\{queue="mail"\} [1-9]`).MatchString(scrape) {
		t.Fatalf("the metrics do not show the mail waiting:\n%s", grepLines(scrape, "marquee_jobs"))
	}

	srv := mailtest.Start(t)
	sender := startAppFor(t, t, k.url, append(slots, "SMTP_URL="+srv.URL, "MAIL_FROM=tickets@marquee.test")...)
	silent.kill()
	got := srv.WaitFor(t, 1, time.Minute)
	if len(got) != 1 || len(got[0].To) != 1 || got[0].To[0] != email {
		t.Fatalf("received %+v, want the ticket to %s", got, email)
	}
	if m := got[0].Message(t); !strings.HasPrefix(m.Subject, "Your tickets: ") {
		t.Fatalf("subject %q, want the ticket", m.Subject)
	}
	deadline := time.Now().Add(time.Minute)
	for pgtest.Scalar[string](t, k.check, `SELECT status FROM mails WHERE booking_id = $1`, bookingID) != "SENT" {
		if time.Now().After(deadline) {
			t.Fatalf("the ticket mail is not recorded as sent within a minute:\n%s", sender.log.tail(30))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(srv.Received()); n != 1 {
		t.Fatalf("received %d mails, want 1", n)
	}
}

var metricsAddr = regexp.MustCompile(`msg="serving metrics" addr=(127\.0\.0\.1:\d+)`)

// scrapeMetrics reads app a's /metrics, served on the address its log
// names (METRICS_ADDR=127.0.0.1:0).
func scrapeMetrics(t *testing.T, a *app) string {
	t.Helper()
	m := metricsAddr.FindStringSubmatch(a.log.tail(1 << 20))
	if m == nil {
		t.Fatalf("the app logged no metrics address:\n%s", a.log.tail(30))
	}
	resp, err := http.Get("http://" + m[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d, %v", resp.StatusCode, err)
	}
	return string(body)
}

// grepLines is the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
