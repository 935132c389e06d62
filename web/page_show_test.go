package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// seatLabel is the accessible name the seat map gives a fixture seat.
var seatLabelPattern = regexp.MustCompile(`^Row [A-J] seat \d+, (Standard|Premium), ₹(250|450), (available|held by someone else|sold|held for you)$`)

func TestShowPage(t *testing.T) {
	e := newEnv(t)

	t.Run("every seat is a labelled button with its status", func(t *testing.T) {
		other := e.user(t)
		other.mustHold(t, "B1", "B2")
		p := e.browser().get(t, e.showPath())
		want200(t, p)
		if !strings.Contains(p.text("h1"), "The Last Algorithm") || !strings.Contains(p.text("main"), "Test Cinema") {
			t.Fatalf("heading: %s", p.text("main"))
		}
		seats := p.Doc.Find("#seatmap button.seat")
		if seats.Length() != 100 {
			t.Fatalf("%d seat buttons, want 100", seats.Length())
		}
		seats.Each(func(_ int, s *goquery.Selection) {
			id, _ := s.Attr("id")
			status, _ := s.Attr("data-status")
			label, _ := s.Attr("aria-label")
			if !strings.HasPrefix(id, "seat-") || status == "" || !seatLabelPattern.MatchString(label) {
				t.Errorf("seat id=%q data-status=%q aria-label=%q", id, status, label)
			}
			if typ, _ := s.Attr("type"); typ != "button" {
				t.Errorf("%s is a %q button", id, typ)
			}
		})
		if got := p.attr("#seat-A1", "aria-label"); got != "Row A seat 1, Standard, ₹250, available" {
			t.Errorf("A1 label = %q", got)
		}
		if got := p.attr("#seat-J10", "aria-label"); got != "Row J seat 10, Premium, ₹450, available" {
			t.Errorf("J10 label = %q", got)
		}
		if p.attr("#seat-B1", "data-status") != "held" || p.attr("#seat-B1", "aria-disabled") != "true" {
			t.Errorf("B1 held by another: status %q", p.attr("#seat-B1", "data-status"))
		}
		if p.attr("#seat-A1", "aria-pressed") != "false" {
			t.Error("an available seat is not a toggle button")
		}
		if got := p.text("[data-refund-policy] summary"); got != "Cancellation policy: Full refund if you cancel 24 hours or more before the show" {
			t.Errorf("the show page's policy reads %q", got)
		}
		if got := p.text("#seat-B1"); got != "1" {
			t.Errorf("a held seat shows %q, want its number", got)
		}
		legend := p.text(`[aria-label="Prices"]`)
		if !strings.Contains(legend, "Standard ₹250") || !strings.Contains(legend, "Premium ₹450") {
			t.Errorf("legend = %q", legend)
		}
		if !p.has(`form[data-hold-form] input[name="key"]`) || p.attr(`form[data-hold-form]`, "hx-post") != e.showPath()+"/hold" {
			t.Error("no hold form with an idempotency key")
		}
	})

	t.Run("the seat map alone, as an htmx fragment", func(t *testing.T) {
		p := e.browser().htmxGet(t, e.showPath()+"/seatmap")
		want200(t, p)
		if strings.Contains(p.Body, "<html") || !p.has("#seatmap button#seat-A1") {
			t.Fatalf("not a seat map fragment: %s", p)
		}
	})

	t.Run("a guest is asked to log in and comes back with the selection", func(t *testing.T) {
		b := e.browser()
		p := b.submit(t, e.showPath()+"/hold", url.Values{"seat": {"C3", "C4"}, "key": {"k1"}})
		next := e.showPath() + "?seats=C3%2CC4"
		wantSeeOther(t, p, "/login?next="+url.QueryEscape(next))
		p = b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"C3", "C4"}, "key": {"k1"}})
		if p.Status != http.StatusNoContent || p.Header.Get("HX-Redirect") != "/login?next="+url.QueryEscape(next) {
			t.Fatalf("htmx guest hold: %d HX-Redirect %q", p.Status, p.Header.Get("HX-Redirect"))
		}
		// The login form carries next; logging in lands on the show with C3, C4 picked.
		login := b.get(t, "/login?next="+url.QueryEscape(next))
		if login.attr(`input[name="next"]`, "value") != next {
			t.Fatalf("login form next = %q", login.attr(`input[name="next"]`, "value"))
		}
		email := e.browser().signup(t)
		p = b.submit(t, "/login", url.Values{"email": {email}, "password": {"correct horse"}, "next": {next}})
		wantSeeOther(t, p, next)
		p = b.get(t, next)
		want200(t, p)
		for _, id := range []string{"C3", "C4"} {
			if p.attr("#seat-"+id, "aria-pressed") != "true" || !p.has(`[data-selected-inputs] input[name="seat"][value="`+id+`"]`) {
				t.Errorf("%s is not selected after login", id)
			}
		}
		if !strings.Contains(p.text("[data-selection-summary]"), "C3, C4") || p.text("[data-selection-total]") != "₹500" {
			t.Errorf("summary %q total %q", p.text("[data-selection-summary]"), p.text("[data-selection-total]"))
		}
	})

	t.Run("holding shows the checkout panel with the server's deadline", func(t *testing.T) {
		b := e.pageUser(t)
		before := time.Now()
		p := b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"D1", "D2"}, "key": {"render-1"}})
		want200(t, p)
		if strings.Contains(p.Body, "<html") || !p.has("section#booking #checkout") {
			t.Fatalf("not the booking fragment with a checkout panel: %s", p)
		}
		exp, err := time.Parse(time.RFC3339Nano, p.attr("[data-countdown]", "data-expires-at"))
		if err != nil || exp.Before(before.Add(holdTTL-time.Minute)) || exp.After(time.Now().Add(holdTTL+time.Second)) {
			t.Fatalf("expires_at %q: %v", p.attr("[data-countdown]", "data-expires-at"), err)
		}
		if !strings.Contains(p.text("#checkout"), "₹500") {
			t.Errorf("total missing: %s", p.text("#checkout"))
		}
		// Before paying: what it costs, line by line, and what cancelling
		// would give back (the fixture theatre has the default policy).
		breakdown := strings.ReplaceAll(p.text("#checkout [data-price-breakdown]"), " ", "")
		for _, want := range []string{"Tickets(2)₹500", "BookingfeeNone", "Total₹500"} {
			if !strings.Contains(breakdown, want) {
				t.Errorf("price breakdown %q lacks %q", breakdown, want)
			}
		}
		policy := p.text("#checkout [data-refund-policy]")
		for _, want := range []string{"Full refund if you cancel 24 hours or more before the show", "50% back if you cancel 2 hours or more before", "No cancellation in the last 2 hours"} {
			if !strings.Contains(policy, want) {
				t.Errorf("the policy before Pay %q lacks %q", policy, want)
			}
		}
		pay := p.attr(`#checkout form[action$="/pay"]`, "action")
		if !regexp.MustCompile(`^/holds/[0-9a-f-]{36}/pay$`).MatchString(pay) || !p.has(`#checkout form[action$="/pay"] input[name="_csrf"]`) {
			t.Fatalf("pay form action %q", pay)
		}
		if p.attr("#seat-D1", "data-status") != "mine" {
			t.Errorf("D1 status %q, want mine", p.attr("#seat-D1", "data-status"))
		}
		holdID := strings.TrimSuffix(strings.TrimPrefix(pay, "/holds/"), "/pay")

		t.Run("a double submit is harmless", func(t *testing.T) {
			again := b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"D2", "D1"}, "key": {"render-1"}})
			want200(t, again)
			if again.attr(`#checkout form[action$="/pay"]`, "action") != pay {
				t.Fatal("the repeated form made another hold")
			}
			if n := e.count(t, `SELECT count(*) FROM holds WHERE seat_ids = ARRAY['D1','D2']`); n != 1 {
				t.Fatalf("%d holds of D1, D2", n)
			}
		})

		t.Run("the page shows the live hold", func(t *testing.T) {
			p := b.get(t, e.showPath())
			if !p.has("#checkout") || !p.has(`[data-countdown][data-refresh-url]`) {
				t.Fatalf("no checkout panel on the page: %s", p.text("main"))
			}
		})

		t.Run("release gives the seats back", func(t *testing.T) {
			p := b.htmxPost(t, "/holds/"+holdID+"/release", url.Values{"show": {fmt.Sprint(e.show)}})
			want200(t, p)
			if !strings.Contains(p.text("[data-notice]"), "Seats released") || p.attr("#seat-D1", "data-status") != "available" {
				t.Fatalf("after release: %s", p.text("#booking"))
			}
			if e.count(t, `SELECT count(*) FROM holds WHERE id = $1 AND state = 'CANCELLED'`, holdID) != 1 {
				t.Fatal("the hold is not cancelled")
			}
		})
	})

	t.Run("after a release nothing is picked, and the form's key with other seats is a new hold", func(t *testing.T) {
		b := e.pageUser(t)
		p := b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"H5"}, "key": {"render-stale"}})
		want200(t, p)
		pay := p.attr(`#checkout form[action$="/pay"]`, "action")
		holdID := strings.TrimSuffix(strings.TrimPrefix(pay, "/holds/"), "/pay")
		p = b.htmxPost(t, "/holds/"+holdID+"/release", url.Values{"show": {fmt.Sprint(e.show)}})
		want200(t, p)
		if p.has(`#seatmap button.seat[aria-pressed="true"]`) || p.has(`[data-selected-inputs] input`) {
			t.Fatalf("after Release the released seats are picked again: %s", p.text("[data-selection-summary]"))
		}
		if got := p.text("[data-selection-summary]"); got != "No seats selected yet." {
			t.Fatalf("after Release the summary says %q", got)
		}
		// The page the shopper came back to (Back, an old tab) still
		// carries the first form's key; with other seats it must hold them.
		p = b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"H7", "H8"}, "key": {"render-stale"}})
		want200(t, p)
		if !p.has("#checkout") || p.attr("#seat-H7", "data-status") != "mine" || p.attr("#seat-H8", "data-status") != "mine" {
			t.Fatalf("the old key with new seats did not hold them: %s", p.text("#booking"))
		}
		if strings.Contains(p.Body, "Idempotency") {
			t.Fatalf("developer wording on the page: %s", p.text("#booking"))
		}
	})

	t.Run("show pages and their fragments are never cached", func(t *testing.T) {
		b := e.pageUser(t)
		for path, r := range map[string]*htmlDoc{e.showPath(): b.get(t, e.showPath()), e.showPath() + "/booking": b.htmxGet(t, e.showPath()+"/booking")} {
			if got := r.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("%s: Cache-Control %q, want no-store", path, got)
			}
		}
	})

	t.Run("a conflict names the taken seats and keeps the rest", func(t *testing.T) {
		e.user(t).mustHold(t, "E2")
		b := e.pageUser(t)
		p := b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"E1", "E2", "E3"}, "key": {"render-2"}})
		wantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.text("[data-notice]"), "Seat E2 is no longer available") {
			t.Fatalf("notice = %q", p.text("[data-notice]"))
		}
		for _, id := range []string{"E1", "E3"} {
			if p.attr("#seat-"+id, "aria-pressed") != "true" || !p.has(`[data-selected-inputs] input[value="`+id+`"]`) {
				t.Errorf("%s is no longer selected", id)
			}
		}
		if p.attr("#seat-E2", "data-status") != "held" || p.attr("#seat-E2", "data-taken") != "true" || p.has(`[data-selected-inputs] input[value="E2"]`) {
			t.Error("E2 is not shown as taken")
		}
		if p.attr(`input[name="key"]`, "value") == "render-2" {
			t.Error("the new form reuses the old key")
		}
		if e.count(t, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND seat_id IN ('E1','E3') AND status = 'AVAILABLE'`, e.show) != 2 {
			t.Fatal("a refused hold claimed seats")
		}
	})

	t.Run("unknown and too many seats get a clear message", func(t *testing.T) {
		b := e.pageUser(t)
		p := b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"F1", "Z99"}, "key": {"render-3"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.text("[data-notice]"), "no seat Z99") || p.attr("#seat-F1", "aria-pressed") != "true" {
			t.Fatalf("unknown seat: %s", p.text("[data-notice]"))
		}
		p = b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "G10", "H1"}, "key": {"render-4"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.text("[data-notice]"), "at most 10 seats") {
			t.Fatalf("too many: %s", p.text("[data-notice]"))
		}
		p = b.htmxPost(t, e.showPath()+"/hold", url.Values{"key": {"render-5"}})
		wantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.text("[data-notice]"), "Pick at least one seat") {
			t.Fatalf("no seats: %s", p.text("[data-notice]"))
		}
	})

	t.Run("a hold without the CSRF token is refused and changes nothing", func(t *testing.T) {
		b := e.pageUser(t)
		before := e.snapshot(t)
		p := b.send(t, "POST", e.showPath()+"/hold", url.Values{"seat": {"H5"}, "key": {"x"}}, map[string]string{"HX-Request": "true"})
		wantFriendly(t, p, http.StatusForbidden)
		if p.Header.Get("HX-Retarget") != "#flash" || !p.has("[role=alert]") || strings.Contains(p.Body, "<html") {
			t.Fatalf("htmx error is not a fragment for #flash: %s", p)
		}
		p = b.send(t, "POST", e.showPath()+"/hold", url.Values{"seat": {"H5"}, "key": {"x"}, "_csrf": {"wrong"}}, nil)
		wantFriendly(t, p, http.StatusForbidden)
		if !p.has("h1#error-title") {
			t.Fatalf("not an error page: %s", p)
		}
		if e.snapshot(t) != before {
			t.Fatal("a refused hold changed something")
		}
	})

	t.Run("seats taken while a guest logged in are named", func(t *testing.T) {
		e.user(t).mustHold(t, "I2")
		b := e.pageUser(t)
		p := b.get(t, e.showPath()+"?seats=I1,I2")
		want200(t, p)
		if !strings.Contains(p.text("[data-notice]"), "I2") || p.attr("#seat-I1", "aria-pressed") != "true" || p.attr("#seat-I2", "aria-pressed") == "true" {
			t.Fatalf("preselection: %s", p.text("#booking"))
		}
	})

	t.Run("an unknown show is a friendly 404", func(t *testing.T) {
		for _, path := range []string{"/shows/987654", "/shows/abc", "/shows/987654/seatmap"} {
			wantFriendly(t, e.browser().get(t, path), http.StatusNotFound)
		}
	})

	t.Run("the countdown's refresh says the hold expired", func(t *testing.T) {
		b := e.pageUser(t)
		p := b.htmxGet(t, e.showPath()+"/booking?expired=1")
		want200(t, p)
		if !strings.Contains(p.text("[data-notice]"), "Your hold expired") || !p.has("form[data-hold-form]") {
			t.Fatalf("expired refresh: %s", p.text("#booking"))
		}
	})
}

func TestShowPageClosedShow(t *testing.T) {
	e := newEnv(t, withClock)
	e.clock.Advance(73 * time.Hour) // the show started an hour ago
	p := e.pageUser(t).get(t, e.showPath())
	want200(t, p)
	if p.has("form[data-hold-form]") || !strings.Contains(p.text("#booking"), "no longer on sale") {
		t.Fatalf("a started show offers seats: %s", p.text("#booking"))
	}
}

func TestShowPageHoldElsewhere(t *testing.T) {
	e := newEnv(t)
	other := pgtest.NewShow(t, e.store, e.venue, 3, 3, time.Now().Add(96*time.Hour))
	b := e.pageUser(t)
	b.api().mustHold(t, "A1")
	otherPath := fmt.Sprintf("/shows/%d", other)

	p := b.get(t, otherPath)
	want200(t, p)
	if !strings.Contains(p.text("[data-notice]"), "holding seats for another show") || p.attr("[data-notice] a", "href") != e.showPath() {
		t.Fatalf("no pointer to the held seats: %s", p.text("#booking"))
	}
	p = b.htmxPost(t, otherPath+"/hold", url.Values{"seat": {"B2"}, "key": {"elsewhere-1"}})
	wantStatus(t, p, http.StatusConflict)
	if !strings.Contains(p.text("[data-notice]"), "another show") || p.attr("#seat-B2", "aria-pressed") != "true" {
		t.Fatalf("hold elsewhere: %s", p.text("#booking"))
	}
	// The show of the live hold shows it, whatever the page asked for.
	p = b.htmxPost(t, e.showPath()+"/hold", url.Values{"seat": {"C3"}, "key": {"elsewhere-2"}})
	wantStatus(t, p, http.StatusConflict)
	if !p.has("#checkout") || !strings.Contains(p.text("[data-notice]"), "already hold seats for this show") {
		t.Fatalf("hold again in the same show: %s", p.text("#booking"))
	}
}
