package admin_test

import (
	"fmt"
	"net/http"
	netmail "net/mail"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/mail"
	"github.com/marquee-tickets/marquee/internal/mail/mailtest"
	"github.com/marquee-tickets/marquee/internal/notify"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// TestBookingMailsPage: an SMTP server refuses a booking's ticket until
// its job gives up; the booking's page shows the failure and its error,
// the platform's jobs page the discarded job; Resend ticket sends it once
// the server takes mail again. Others cannot see or resend it.
func TestBookingMailsPage(t *testing.T) {
	e := webtest.NewEnv(t, webtest.WithClock)
	_, bookingID := e.Booked(t, "C1", "C2")
	code := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT code FROM bookings WHERE id = $1`, bookingID)
	path := "/admin/bookings/" + bookingID

	srv := mailtest.Start(t)
	srv.Refuse(-1)
	sender, err := mail.ParseSMTP(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	w := &notify.Worker{Store: e.Store, Sender: sender, Site: mail.Site{PublicURL: webtest.PublicURL, From: netmail.Address{Address: "tickets@example.com"}}}
	for range jobs.MailAttempts {
		pgtest.WorkJobs(t, e.Store, w)
		e.Clock.Advance(48 * time.Hour) // past any of River's waits
	}
	if srv.Refused() != jobs.MailAttempts {
		t.Fatalf("refused %d times, want %d", srv.Refused(), jobs.MailAttempts)
	}
	who := newSalesPeople(t, e) // signed in now: the clock has moved a month

	t.Run("the booking's page shows the failed ticket mail", func(t *testing.T) {
		for _, b := range []*webtest.Browser{who.admin, who.platform} {
			p := b.Get(t, path)
			webtest.Want200(t, p)
			if !strings.Contains(p.Text("h1"), code) || p.Text("[data-booking-status]") != "Confirmed" {
				t.Fatalf("heading %q status %q", p.Text("h1"), p.Text("[data-booking-status]"))
			}
			if got := p.Text(`[data-mail="failed"]`); !strings.Contains(got, "Ticket") || !strings.Contains(got, "Failed") ||
				!strings.Contains(got, "451") || !strings.Contains(got, fmt.Sprintf("%d attempts", jobs.MailAttempts)) {
				t.Fatalf("mail row %q", got)
			}
			if !p.Has(`form[action="` + path + `/resend"] input[name="_csrf"]`) {
				t.Fatal("no Resend ticket form")
			}
		}
	})

	t.Run("the jobs page shows the job that gave up, to platform admins", func(t *testing.T) {
		p := who.platform.Get(t, "/admin/jobs?state=discarded")
		webtest.Want200(t, p)
		if got := p.Text(`[data-job="mail"]`); !strings.Contains(got, "451") || !strings.Contains(got, fmt.Sprintf("Attempt %d of %d", jobs.MailAttempts, jobs.MailAttempts)) {
			t.Fatalf("job %q", got)
		}
		if !strings.Contains(p.Text(`[data-state="discarded"][aria-current="page"]`), "Gave up (1)") {
			t.Fatalf("tab %q", p.Text(`[data-state="discarded"]`))
		}
		webtest.WantFriendly(t, who.admin.Get(t, "/admin/jobs"), http.StatusForbidden)
		webtest.WantFriendly(t, who.platform.Get(t, "/admin/jobs?state=nonsense"), http.StatusNotFound)
	})

	t.Run("others are refused and change nothing", func(t *testing.T) {
		wantPageRefused(t, e, who, path)
		before := e.Count(t, `SELECT count(*) FROM mails`)
		webtest.WantFriendly(t, who.stranger.Submit(t, path+"/resend", nil), http.StatusNotFound)
		webtest.WantFriendly(t, who.moviegoer.Submit(t, path+"/resend", nil), http.StatusForbidden)
		if after := e.Count(t, `SELECT count(*) FROM mails`); after != before {
			t.Fatalf("refused resends queued mail: %d -> %d", before, after)
		}
		p := who.stranger.Get(t, "/admin/bookings?q="+url.QueryEscape(code))
		webtest.WantStatus(t, p, http.StatusNotFound)
		if !strings.Contains(p.Text("#booking-q-error"), "No booking of your theatres") {
			t.Fatalf("stranger's search: %q", p.Text("#booking-q-error"))
		}
	})

	t.Run("find by ticket code, resend, and it arrives", func(t *testing.T) {
		webtest.WantSeeOther(t, who.admin.Get(t, "/admin/bookings?q="+strings.ToLower(code)), path)
		srv.Refuse(0)
		webtest.WantSeeOther(t, who.admin.Submit(t, path+"/resend", nil), path+"?done=resend")
		if n := pgtest.WorkJobs(t, e.Store, w); n != 1 {
			t.Fatalf("sent %d mails, want 1", n)
		}
		got := srv.Received()
		if len(got) != 1 || !strings.HasPrefix(got[0].Message(t).Subject, "Your tickets (sent again)") {
			t.Fatalf("received %d mails", len(got))
		}
		p := who.admin.Get(t, path+"?done=resend")
		if !strings.Contains(p.Text(`[data-notice="success"]`), "Ticket queued") || !strings.Contains(p.Text(`[data-mail="sent"]`), "Ticket (resent)") {
			t.Fatalf("page after resend: %q / %q", p.Text("[data-notice]"), p.Text("[data-mails]"))
		}
		if n := e.Count(t, `SELECT count(*) FROM audit_log WHERE action = 'booking.resend_ticket'`); n != 1 {
			t.Fatalf("%d audit entries for the resend, want 1", n)
		}
	})
}
