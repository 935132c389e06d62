package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// The door without JavaScript: a typed code is a form post, answered in
// words and colour; the camera and the scanner's WebAssembly are allowed
// on this page alone.
func TestDoorPage(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	_, u := e.Staff(t, auth.StaffUsher, e.Venue.TheatreID)
	b := e.Browser()
	b.Token(t)
	webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
	ticket := e.Book(t, e.Show, "A1", "A2")
	short := strings.Split(ticket.Code, ".")[2]
	path := fmt.Sprintf("/admin/shows/%d/door", e.Show)

	p := b.Get(t, path)
	if p.Status != http.StatusOK || !strings.Contains(p.Text("[data-door-tickets]"), "1") || p.Text("[data-door-admitted]") != "0" {
		t.Fatalf("door page = %s", p)
	}
	if csp := p.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "'wasm-unsafe-eval'") ||
		!strings.Contains(p.Header.Get("Permissions-Policy"), "camera=(self)") {
		t.Fatalf("the door page may not use the camera or the scanner: %q, %q", csp, p.Header.Get("Permissions-Policy"))
	}
	if other := b.Get(t, e.ShowPath()); strings.Contains(other.Header.Get("Permissions-Policy"), "camera=(self)") {
		t.Fatal("another page may use the camera")
	}

	p = b.Submit(t, path, url.Values{"code": {strings.ToLower(short[:6]) + " " + short[6:]}, "gate": {"Foyer"}})
	if p.Status != http.StatusOK || p.Attr("[data-door-answer]", "data-kind") != "admitted" ||
		!strings.Contains(p.Text("[data-door-detail]"), "A1, A2") || p.Text("[data-door-admitted]") != "1" {
		t.Fatalf("typed code = %s", p)
	}
	p = b.Submit(t, path, url.Values{"code": {ticket.Code}})
	if p.Status != http.StatusConflict || p.Attr("[data-door-answer]", "data-kind") != "again" ||
		!strings.Contains(p.Text("[data-door-detail]"), u.Name) || !strings.Contains(p.Text("[data-door-detail]"), "Foyer") {
		t.Fatalf("scanned again = %s", p)
	}
	p = b.Submit(t, path, url.Values{"code": {"MQ1.forged.ABC.1.xyz"}})
	if p.Status != http.StatusNotFound || p.Attr("[data-door-answer]", "data-kind") != "unknown" || p.Attr("#door-code", "value") == "" {
		t.Fatalf("forged = %s", p)
	}

	// The occupancy page of an usher: the door, no manager's forms.
	p = b.Get(t, fmt.Sprintf("/admin/shows/%d", e.Show))
	if p.Status != http.StatusOK || !p.Has("[data-door-link]") || p.Has("[data-block-form]") || p.Has("[data-waiting-room]") {
		t.Fatalf("usher's show page = %s", p)
	}
	// The door's list of tonight's shows.
	if p = b.Get(t, "/admin/door"); p.Status != http.StatusOK {
		t.Fatalf("door index = %s", p)
	}
}

// The counter without JavaScript: seats typed, sold in cash, the ticket
// to print; a seat taken meanwhile is said at its field and sells nothing.
func TestCounterPage(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	_, u := e.Staff(t, auth.StaffBoxOffice, e.Venue.TheatreID)
	b := e.Browser()
	b.Token(t)
	webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
	path := fmt.Sprintf("/admin/shows/%d/sell", e.Show)

	p := b.Get(t, path)
	key := p.Attr(`input[name=key]`, "value")
	if p.Status != http.StatusOK || key == "" || !p.Has("#seatmap") {
		t.Fatalf("counter = %s", p)
	}
	p = b.Submit(t, path, url.Values{"key": {key}, "seats": {"a1, A2"}, "paid_by": {"card"}, "name": {"Meera"}})
	where := p.Header.Get("Location")
	if p.Status != http.StatusSeeOther || !strings.HasSuffix(where, "/print") {
		t.Fatalf("sale = %s to %q", p, where)
	}
	p = b.Get(t, where)
	if p.Status != http.StatusOK || p.Text("[data-ticket-seats]") != "A1, A2" || !strings.HasPrefix(p.Attr("[data-printed-ticket] img", "src"), "data:image/png;base64,") {
		t.Fatalf("print = %s", p)
	}
	// The same form sent again sells nothing more.
	b.Submit(t, path, url.Values{"key": {key}, "seats": {"A1, A2"}, "paid_by": {"card"}, "name": {"Meera"}})
	if n := e.Count(t, `SELECT count(*) FROM bookings WHERE channel = 'box_office'`); n != 1 {
		t.Fatalf("%d counter bookings, want 1", n)
	}
	p = b.Submit(t, path, url.Values{"key": {"another"}, "seats": {"A2, A3"}, "paid_by": {"complimentary"}, "name": {""}})
	if p.Status != http.StatusUnprocessableEntity || p.Text(`#sell-reason-error`) == "" || p.Text(`#sell-name-error`) == "" {
		t.Fatalf("bad form = %s", p)
	}
	// Each field at fault says so and names its message; the first takes
	// the focus; the others are left as they were.
	if p.Doc.Find(`#sell-name[aria-invalid=true][autofocus]`).Length() != 1 ||
		p.Doc.Find(`#sell-reason[aria-invalid=true]:not([autofocus])`).AttrOr("aria-describedby", "") != "sell-reason-hint sell-reason-error" ||
		p.Doc.Find(`#sell-seats[aria-invalid=false]:not([autofocus])`).AttrOr("aria-describedby", "") != "sell-seats-hint" ||
		p.Doc.Find(`label[for=sell-email] + input#sell-email[type=email]`).Length() != 1 {
		t.Fatalf("the fields of the bad form:\n%s", p.Body)
	}
	p = b.Submit(t, path, url.Values{"key": {"hidden"}, "seats": {"A4"}, "paid_by": {"cash"}, "name": {"Bo\u202e"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text(`#sell-name-error`), "U+202E") {
		t.Fatalf("a name with a right-to-left override = %s", p)
	}
	p = b.Submit(t, path, url.Values{"key": {"third"}, "seats": {"A2, A3"}, "paid_by": {"cash"}, "name": {"Bo"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text(`#sell-seats-error`), "A2") {
		t.Fatalf("taken seat = %s", p)
	}
	if n := e.Count(t, `SELECT count(*) FROM bookings WHERE channel = 'box_office'`); n != 1 {
		t.Fatalf("%d counter bookings after refusals, want 1", n)
	}
}

// The show's page says how many of its sold seats came in at the door,
// and keeps the figure current while it is open: its fragment, polled every
// 5 s with the figure the page shows, answers nothing (204) while that is
// still so, the new figure once a ticket is admitted through the check-in
// use case, and, once the show is over, stops the polling (286).
func TestShowPageAdmittedCount(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	usherAPI, _ := e.Staff(t, auth.StaffUsher, e.Venue.TheatreID)
	pair := e.Book(t, e.Show, "A1", "A2")
	e.Book(t, e.Show, "B1")
	page := fmt.Sprintf("/admin/shows/%d", e.Show)
	part := page + "/admitted"

	for _, role := range []auth.StaffRole{auth.StaffManager, auth.StaffBoxOffice, auth.StaffUsher} {
		_, u := e.Staff(t, role, e.Venue.TheatreID)
		b := e.Browser()
		b.Token(t)
		webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
		p := b.Get(t, page)
		webtest.Want200(t, p)
		live := "[data-admitted-panel] [data-admitted-live]"
		if p.Text(live) != "Admitted 0 of 3" || p.Attr(live, "aria-live") != "polite" || p.Attr(live, "aria-atomic") != "true" {
			t.Fatalf("%s: the admitted figure %q, aria-live %q", role, p.Text(live), p.Attr(live, "aria-live"))
		}
		count := live + " [data-admitted-count]"
		if p.Attr(count, "hx-get") != part+"?seen=0-3" || p.Attr(count, "hx-trigger") != "every 5s" || p.Attr(count, "hx-swap") != "outerHTML" {
			t.Fatalf("%s: the figure does not poll for itself: %q %q", role, p.Attr(count, "hx-get"), p.Attr(count, "hx-trigger"))
		}
		if r := b.HtmxGet(t, part+"?seen=0-3"); r.Status != http.StatusNoContent || r.Body != "" {
			t.Fatalf("%s: an unchanged figure = %s, want 204 and nothing", role, r)
		}
	}

	_, u := e.Staff(t, auth.StaffManager, e.Venue.TheatreID)
	b := e.Browser()
	b.Token(t)
	webtest.Want(t, b.API().Login(u.Email), http.StatusOK)
	// The usher scans the pair's ticket.
	webtest.Want(t, usherAPI.Post(fmt.Sprintf("/api/v1/admin/shows/%d/checkins", e.Show), map[string]any{"code": pair.Code}), http.StatusOK)
	p := b.HtmxGet(t, part+"?seen=0-3")
	webtest.Want200(t, p)
	if p.Text("[data-admitted-count]") != "Admitted 2 of 3" || p.Attr("[data-admitted-count]", "hx-get") != part+"?seen=2-3" ||
		p.Attr("[data-admitted-count]", "hx-trigger") != "every 5s" || p.Has("header") || p.Has("[aria-live]") {
		t.Fatalf("the fragment after an admission = %s", p)
	}
	if p.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", p.Header.Get("Cache-Control"))
	}
	if r := b.HtmxGet(t, part+"?seen=2-3"); r.Status != http.StatusNoContent {
		t.Fatalf("the new figure polled again = %s, want 204", r)
	}
	if got := b.Get(t, page).Text("[data-admitted-live]"); got != "Admitted 2 of 3" {
		t.Fatalf("the page, loaded again, says %q", got)
	}

	t.Run("a show that is over stops the polling", func(t *testing.T) {
		pgtest.Exec(t, e.Store.Pool(), `UPDATE shows SET starts_at = now() - interval '4 hours', ends_at = now() - interval '1 hour' WHERE id = $1`, e.Show)
		r := b.HtmxGet(t, part+"?seen=2-3")
		if r.Status != 286 || r.Header.Get("HX-Reswap") != "none" || r.Body != "" {
			t.Fatalf("the figure polled after the show = %d %q %q, want 286, HX-Reswap none", r.Status, r.Header.Get("HX-Reswap"), r.Body)
		}
		p := b.Get(t, page)
		if p.Text("[data-admitted-live]") != "Admitted 2 of 3" || p.Has("[data-admitted-count][hx-trigger]") {
			t.Fatalf("the page of a show that is over: %q, polling %v", p.Text("[data-admitted-live]"), p.Has("[data-admitted-count][hx-trigger]"))
		}
	})

	t.Run("others are refused", func(t *testing.T) {
		webtest.WantFriendly(t, e.PageUser(t).Get(t, part), http.StatusForbidden)
		stranger := pgtest.NewVenue(t, e.Store)
		_, su := e.Staff(t, auth.StaffUsher, stranger.TheatreID)
		sb := e.Browser()
		sb.Token(t)
		webtest.Want(t, sb.API().Login(su.Email), http.StatusOK)
		webtest.WantFriendly(t, sb.Get(t, part), http.StatusNotFound)
		if p := e.Browser().Get(t, part); p.Status != http.StatusSeeOther {
			t.Fatalf("a guest = %d, want a redirect to log in", p.Status)
		}
	})
}
