package admin_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/auth"
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
	if p.Status != http.StatusUnprocessableEntity || p.Text(`[data-field-error=reason]`) == "" || p.Text(`[data-field-error=name]`) == "" {
		t.Fatalf("bad form = %s", p)
	}
	p = b.Submit(t, path, url.Values{"key": {"third"}, "seats": {"A2, A3"}, "paid_by": {"cash"}, "name": {"Bo"}})
	if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Text(`[data-field-error=seats]`), "A2") {
		t.Fatalf("taken seat = %s", p)
	}
	if n := e.Count(t, `SELECT count(*) FROM bookings WHERE channel = 'box_office'`); n != 1 {
		t.Fatalf("%d counter bookings after refusals, want 1", n)
	}
}
