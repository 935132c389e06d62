package pages_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestBrowserReschedule: a manager moves a show from its admin page on a
// desktop, first onto the next show of its screen (refused at the field),
// then to a free time; the moviegoer's e-ticket, on a phone, says the show
// moved and when to. axe-core finds nothing wrong with either page, at a
// desktop's width and a phone's.
func TestBrowserReschedule(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{})
	show := s.newShow(4, 6)
	// On the minute, as the form's times are.
	pgtest.Exec(t, s.Store.Pool(), `UPDATE shows SET starts_at = date_trunc('minute', starts_at), ends_at = date_trunc('minute', ends_at) WHERE id = $1`, show)
	b := s.confirmed(show, "B2", "B3")
	theatre := scalar[int64](s, `SELECT sc.theatre_id FROM shows sh JOIN screens sc ON sc.id = sh.screen_id WHERE sh.id = $1`, show)
	starts := scalar[time.Time](s, `SELECT starts_at FROM shows WHERE id = $1`, show)
	// The next day's show of the screen, in the way of a move onto it.
	pgtest.Exec(t, s.Store.Pool(), `
		INSERT INTO shows (movie_id, screen_id, starts_at, ends_at, currency)
		SELECT movie_id, screen_id, starts_at + interval '1 day', ends_at + interval '1 day', currency FROM shows WHERE id = $1`, show)
	manager := pgtest.User(t, s.Store)
	pgtest.Exec(t, s.Store.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, manager)
	pgtest.Exec(t, s.Store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, theatre, manager)
	managerEmail := scalar[string](s, `SELECT email FROM users WHERE id = $1`, manager)
	local := func(at time.Time) string { return at.In(format.Zone("Asia/Kolkata")).Format("2006-01-02T15:04") }
	path := fmt.Sprintf("/admin/shows/%d", show)

	for _, vp := range []viewport{desktop, phone} {
		mt := s.adminTab(t, browser, "reschedule-"+vp.name, managerEmail, vp)
		mt.open(path)
		mt.waitVisible(`#seatmap[data-ready="true"]`)
		mt.waitVisible("[data-reschedule]")
		wantText(t, "what a move does", mt.Text("[data-reschedule-effect]"), "1 booking moves with the show", "Its moviegoer is e-mailed the new time")
		// Onto the next show: refused, said at the field.
		eval[string](mt, fmt.Sprintf(`document.getElementById('reschedule-starts_at').value = %s`, jsString(local(starts.Add(23*time.Hour)))))
		mt.click(`[data-reschedule] button[type=submit]`)
		mt.waitVisible("[data-reschedule-error]")
		wantText(t, "the refusal", mt.Text("[data-reschedule-error]"), "The screen is busy then")
		mt.lookLoaded(vp.name + " reschedule refused")
	}
	if n := scalar[int64](s, `SELECT count(*) FROM show_reschedules`); n != 0 {
		t.Fatalf("%d moves after a refusal", n)
	}

	mt := s.adminTab(t, browser, "reschedule", managerEmail, desktop)
	mt.open(path)
	mt.waitVisible("[data-reschedule]")
	to := starts.Add(3 * time.Hour)
	eval[string](mt, fmt.Sprintf(`document.getElementById('reschedule-starts_at').value = %s`, jsString(local(to))))
	mt.click(`[data-reschedule] button[type=submit]`)
	mt.waitVisible(`[data-notice="success"]`)
	wantText(t, "the notice", mt.Text(`[data-notice="success"]`), "moved to its new time", "1 booking moved", "1 moviegoer e-mailed")
	wantText(t, "the show's time", mt.Text("header time"), format.Clock(to, "Asia/Kolkata"))
	mt.lookLoaded("desktop rescheduled")
	if n := scalar[int64](s, `SELECT count(*) FROM shows WHERE id = $1 AND starts_at = $2`, show, to); n != 1 {
		t.Fatal("the show did not move")
	}

	ph := s.openTab(t, browser, "reschedule-moviegoer", phone)
	ph.logInWith(scalar[string](s, `SELECT email FROM users WHERE id = $1`, b.UserID), pgtest.FixturePassword)
	ph.open("/bookings/" + b.ID)
	ph.waitVisible("[data-moved]")
	wantText(t, "the e-ticket", ph.Text("[data-moved]"), "Moved by the theatre", format.When(starts, "Asia/Kolkata"), format.When(to, "Asia/Kolkata"))
	ph.lookLoaded("phone moved ticket")
}
