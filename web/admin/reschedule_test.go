package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

func TestRescheduleShowPage(t *testing.T) {
	e := webtest.NewEnv(t, webtest.WithClock)
	who := newSalesPeople(t, e)
	path := fmt.Sprintf("/admin/shows/%d", e.Show)
	// On the minute, as a time typed in the form is.
	pgtest.Exec(t, e.Store.Pool(), `UPDATE shows SET starts_at = date_trunc('minute', starts_at), ends_at = date_trunc('minute', ends_at) WHERE id = $1`, e.Show)
	e.Book(t, e.Show, "J1")
	e.Book(t, e.Show, "J2", "J3")
	e.Book(t, e.Show, "J4")
	sale := who.admin.API().Send(webtest.Req{Method: "POST", Path: fmt.Sprintf("/api/v1/admin/shows/%d/sales", e.Show),
		Header: map[string]string{"Idempotency-Key": "walk-in"},
		Body:   map[string]any{"seats": []string{"A1"}, "paid_by": "cash", "customer": map[string]any{"name": "Walk-in"}}})
	webtest.Want(t, sale, http.StatusCreated)
	starts := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT starts_at FROM shows WHERE id = $1`, e.Show)
	screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	next := who.platform.API().Post("/api/v1/admin/shows", map[string]any{"screen_id": screen, "movie_id": e.Venue.MovieID,
		"starts_at": starts.Add(24 * time.Hour).Format(time.RFC3339), "currency": "INR", "prices": pgtest.Prices})
	webtest.Want(t, next, http.StatusCreated)
	kolkata := format.Zone("Asia/Kolkata")
	local := func(at time.Time) string { return at.In(kolkata).Format("2006-01-02T15:04") }

	t.Run("the manager's form says what a move does before it is made", func(t *testing.T) {
		p := who.admin.Get(t, path)
		webtest.Want200(t, p)
		form := `form[action="` + path + `/reschedule"]`
		if !p.Has(form+` input[name="_csrf"]`) || p.Attr("#reschedule-starts_at", "type") != "datetime-local" ||
			p.Attr("#reschedule-starts_at", "value") != local(starts) || !strings.Contains(p.Text(`label[for="reschedule-starts_at"]`), "IST") {
			t.Fatalf("the form: %q", p.Text("[data-reschedule]"))
		}
		effect := p.Text("[data-reschedule-effect]")
		for _, want := range []string{"4 bookings move with the show", "Each of their 3 moviegoers is e-mailed the new time, once",
			"full refund until the show starts", "1 booking sold at the box office gave no e-mail address"} {
			if !strings.Contains(effect, want) {
				t.Errorf("the effect lacks %q: %q", want, effect)
			}
		}
		if got := p.Text(form + ` button[type="submit"]`); got != "Move the show and e-mail 3 moviegoers" {
			t.Errorf("button %q", got)
		}
		if !strings.Contains(p.Text("[data-reschedule]"), "2h 15m") {
			t.Errorf("the form does not say how long the show keeps its screen: %q", p.Text("[data-reschedule]"))
		}
		// Staff who do not manage the theatre see the show, not the form.
		b := e.Browser()
		b.Token(t)
		_, u := e.Staff(t, auth.StaffBoxOffice, e.Venue.TheatreID)
		webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
		if p := b.Get(t, path); p.Status != http.StatusOK || p.Has("[data-reschedule]") {
			t.Fatalf("the box office's page: %d, form %v", p.Status, p.Has("[data-reschedule]"))
		}
	})

	t.Run("refused, said at the field, nothing changed", func(t *testing.T) {
		state := func() string {
			return e.Snapshot(t) + " " + pgtest.Scalar[string](t, e.Store.Pool(), `
				SELECT format('starts=%s moves=%s mails=%s', (SELECT starts_at FROM shows WHERE id = $1),
				       (SELECT count(*) FROM show_reschedules), (SELECT count(*) FROM mails))`, e.Show)
		}
		before := state()
		for _, tc := range []struct {
			typed  string
			status int
			says   string
		}{
			{"", http.StatusUnprocessableEntity, "Give the new date and time"},
			{"next tuesday", http.StatusUnprocessableEntity, "Give the new date and time"},
			{local(e.Now().Add(-time.Hour)), http.StatusUnprocessableEntity, "cannot start in the past"},
			{local(starts), http.StatusUnprocessableEntity, "already starts then"},
			{local(starts.Add(24*time.Hour - time.Hour)), http.StatusConflict, "The screen is busy then: The Last Algorithm starts at " +
				format.When(starts.Add(24*time.Hour).Truncate(time.Second), "Asia/Kolkata")},
		} {
			p := who.admin.Submit(t, path+"/reschedule", url.Values{"starts_at": {tc.typed}})
			webtest.WantStatus(t, p, tc.status)
			if msg := p.Text("#reschedule-starts_at-error"); !strings.Contains(msg, tc.says) {
				t.Errorf("%q: error %q, want %q", tc.typed, msg, tc.says)
			}
			if p.Attr("#reschedule-starts_at", "aria-invalid") != "true" ||
				!strings.Contains(p.Attr("#reschedule-starts_at", "aria-describedby"), "reschedule-starts_at-error") ||
				p.Attr("#reschedule-starts_at", "value") != tc.typed || p.Attr("[data-notice]", "role") != "alert" {
				t.Errorf("%q: the field does not carry its error, or lost what was typed", tc.typed)
			}
		}
		webtest.WantFriendly(t, who.moviegoer.Submit(t, path+"/reschedule", url.Values{"starts_at": {local(starts.Add(time.Hour))}}), http.StatusForbidden)
		webtest.WantFriendly(t, who.stranger.Submit(t, path+"/reschedule", url.Values{"starts_at": {local(starts.Add(time.Hour))}}), http.StatusNotFound)
		if after := state(); after != before {
			t.Fatalf("refused moves changed %s -> %s", before, after)
		}
	})

	t.Run("moved: the page says what it did, at the new time", func(t *testing.T) {
		to := starts.Add(2 * time.Hour).Truncate(time.Minute)
		p := who.admin.Submit(t, path+"/reschedule", url.Values{"starts_at": {local(to)}})
		webtest.WantSeeOther(t, p, path+"?rescheduled=1&bookings=4&told=3")
		if got := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT starts_at FROM shows WHERE id = $1`, e.Show); !got.Equal(to) {
			t.Fatalf("the show starts %s, want %s", got, to)
		}
		p = who.admin.Get(t, path+"?rescheduled=1&bookings=4&told=3")
		webtest.Want200(t, p)
		if n := p.Text(`[data-notice="success"]`); !strings.Contains(n, "The show is moved to its new time") ||
			!strings.Contains(n, "4 bookings moved with it; 3 moviegoers e-mailed the new time.") {
			t.Fatalf("notice %q", n)
		}
		if when := p.Text("header time"); when != format.Date(to, "Asia/Kolkata")+", "+format.Clock(to, "Asia/Kolkata") ||
			p.Attr("#reschedule-starts_at", "value") != local(to) {
			t.Fatalf("the page says %q, the form %q", when, p.Attr("#reschedule-starts_at", "value"))
		}
		// The audit log says it in words.
		a := who.platform.Get(t, "/admin/audit")
		if !strings.Contains(a.Text("main"), "Rescheduled show") {
			t.Errorf("the audit log does not name the move: %q", a.Text("main"))
		}
	})
}
