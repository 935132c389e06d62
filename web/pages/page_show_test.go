package pages_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/PuerkitoBio/goquery"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// seatLabel is the accessible name the seat map gives a fixture seat.
var seatLabelPattern = regexp.MustCompile(`^Row [A-J] seat \d+, (Standard|Premium), ₹(250|450), (available|held by someone else|sold|held for you)$`)

func TestShowPage(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)

	t.Run("every seat is a labelled button with its status", func(t *testing.T) {
		other := e.User(t)
		other.MustHold(t, "B1", "B2")
		p := e.Browser().Get(t, e.ShowPath())
		webtest.Want200(t, p)
		if !strings.Contains(p.Text("h1"), "The Last Algorithm") || !strings.Contains(p.Text("main"), "Test Cinema") {
			t.Fatalf("heading: %s", p.Text("main"))
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
		if got := p.Attr("#seat-A1", "aria-label"); got != "Row A seat 1, Standard, ₹250, available" {
			t.Errorf("A1 label = %q", got)
		}
		if got := p.Attr("#seat-J10", "aria-label"); got != "Row J seat 10, Premium, ₹450, available" {
			t.Errorf("J10 label = %q", got)
		}
		if p.Attr("#seat-B1", "data-status") != "held" || p.Attr("#seat-B1", "aria-disabled") != "true" {
			t.Errorf("B1 held by another: status %q", p.Attr("#seat-B1", "data-status"))
		}
		if p.Attr("#seat-A1", "aria-pressed") != "false" {
			t.Error("an available seat is not a toggle button")
		}
		if got := p.Text("[data-refund-policy] summary"); !regexp.MustCompile(`^Cancellation policy · Full refund until \w{3} \d\d:\d\d, then 50% refund until \w{3} \d\d:\d\d, then no refund$`).MatchString(got) {
			t.Errorf("the show page's policy reads %q", got)
		}
		if got := p.Text("[data-refund-policy] li"); got != "Full refund if you cancel more than 24 hours before the show" {
			t.Errorf("the policy's first rule reads %q", got)
		}
		if got := p.Text("#seat-B1"); got != "1" {
			t.Errorf("a held seat shows %q, want its number", got)
		}
		legend := p.Text(`[aria-label="Prices"]`)
		if !strings.Contains(legend, "Standard ₹250") || !strings.Contains(legend, "Premium ₹450") {
			t.Errorf("legend = %q", legend)
		}
		if !p.Has(`form[data-hold-form] input[name="key"]`) || p.Attr(`form[data-hold-form]`, "hx-post") != e.ShowPath()+"/hold" {
			t.Error("no hold form with an idempotency key")
		}
	})

	t.Run("the seat map alone, as an htmx fragment", func(t *testing.T) {
		p := e.Browser().HtmxGet(t, e.ShowPath()+"/seatmap")
		webtest.Want200(t, p)
		if strings.Contains(p.Body, "<html") || !p.Has("#seatmap button#seat-A1") {
			t.Fatalf("not a seat map fragment: %s", p)
		}
	})

	t.Run("a guest is asked to log in and comes back with the selection", func(t *testing.T) {
		b := e.Browser()
		p := b.Submit(t, e.ShowPath()+"/hold", url.Values{"seat": {"C3", "C4"}, "key": {"k1"}})
		next := e.ShowPath() + "?seats=C3%2CC4"
		webtest.WantSeeOther(t, p, "/login?next="+url.QueryEscape(next))
		p = b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"C3", "C4"}, "key": {"k1"}})
		if p.Status != http.StatusNoContent || p.Header.Get("HX-Redirect") != "/login?next="+url.QueryEscape(next) {
			t.Fatalf("htmx guest hold: %d HX-Redirect %q", p.Status, p.Header.Get("HX-Redirect"))
		}
		// The login form carries next; logging in lands on the show with C3, C4 picked.
		login := b.Get(t, "/login?next="+url.QueryEscape(next))
		if login.Attr(`input[name="next"]`, "value") != next {
			t.Fatalf("login form next = %q", login.Attr(`input[name="next"]`, "value"))
		}
		email := e.Browser().Signup(t)
		p = b.Submit(t, "/login", url.Values{"email": {email}, "password": {"correct horse"}, "next": {next}})
		webtest.WantSeeOther(t, p, next)
		p = b.Get(t, next)
		webtest.Want200(t, p)
		for _, id := range []string{"C3", "C4"} {
			if p.Attr("#seat-"+id, "aria-pressed") != "true" || !p.Has(`[data-selected-inputs] input[name="seat"][value="`+id+`"]`) {
				t.Errorf("%s is not selected after login", id)
			}
		}
		if !strings.Contains(p.Text("[data-selection-summary]"), "C3, C4") || p.Text("[data-selection-total]") != "₹500" {
			t.Errorf("summary %q total %q", p.Text("[data-selection-summary]"), p.Text("[data-selection-total]"))
		}
	})

	t.Run("holding shows the checkout panel with the server's deadline", func(t *testing.T) {
		b := e.PageUser(t)
		before := time.Now()
		p := b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"D1", "D2"}, "key": {"render-1"}})
		webtest.Want200(t, p)
		if strings.Contains(p.Body, "<html") || !p.Has("section#booking #checkout") {
			t.Fatalf("not the booking fragment with a checkout panel: %s", p)
		}
		exp, err := time.Parse(time.RFC3339Nano, p.Attr("[data-countdown]", "data-expires-at"))
		if err != nil || exp.Before(before.Add(webtest.HoldTTL-time.Minute)) || exp.After(time.Now().Add(webtest.HoldTTL+time.Second)) {
			t.Fatalf("expires_at %q: %v", p.Attr("[data-countdown]", "data-expires-at"), err)
		}
		if !strings.Contains(p.Text("#checkout"), "₹500") {
			t.Errorf("total missing: %s", p.Text("#checkout"))
		}
		// Before paying: what it costs, line by line, and what cancelling
		// would give back (the fixture theatre has the default policy).
		breakdown := strings.ReplaceAll(p.Text("#checkout [data-price-breakdown]"), " ", "")
		for _, want := range []string{"Tickets(2)₹500", "BookingfeeNone", "Total₹500"} {
			if !strings.Contains(breakdown, want) {
				t.Errorf("price breakdown %q lacks %q", breakdown, want)
			}
		}
		// The show is 72 hours away (TestRefundNowBeforePay has the exact words).
		policy := p.Text("#checkout [data-refund-now]")
		if !regexp.MustCompile(`^Full refund until \w{3} \d\d:\d\d, then 50% refund until \w{3} \d\d:\d\d, then no refund$`).MatchString(policy) {
			t.Errorf("the policy before Pay reads %q", policy)
		}
		pay := p.Attr(`#checkout form[action$="/pay"]`, "action")
		if !regexp.MustCompile(`^/holds/[0-9a-f-]{36}/pay$`).MatchString(pay) || !p.Has(`#checkout form[action$="/pay"] input[name="_csrf"]`) {
			t.Fatalf("pay form action %q", pay)
		}
		if p.Attr("#seat-D1", "data-status") != "mine" {
			t.Errorf("D1 status %q, want mine", p.Attr("#seat-D1", "data-status"))
		}
		holdID := strings.TrimSuffix(strings.TrimPrefix(pay, "/holds/"), "/pay")

		t.Run("a double submit is harmless", func(t *testing.T) {
			again := b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"D2", "D1"}, "key": {"render-1"}})
			webtest.Want200(t, again)
			if again.Attr(`#checkout form[action$="/pay"]`, "action") != pay {
				t.Fatal("the repeated form made another hold")
			}
			if n := e.Count(t, `SELECT count(*) FROM holds WHERE seat_ids = ARRAY['D1','D2']`); n != 1 {
				t.Fatalf("%d holds of D1, D2", n)
			}
		})

		t.Run("the page shows the live hold", func(t *testing.T) {
			p := b.Get(t, e.ShowPath())
			if !p.Has("#checkout") || !p.Has(`[data-countdown][data-refresh-url]`) {
				t.Fatalf("no checkout panel on the page: %s", p.Text("main"))
			}
		})

		t.Run("release gives the seats back", func(t *testing.T) {
			p := b.HtmxPost(t, "/holds/"+holdID+"/release", url.Values{"show": {fmt.Sprint(e.Show)}})
			webtest.Want200(t, p)
			if !strings.Contains(p.Text("[data-notice]"), "Seats released") || p.Attr("#seat-D1", "data-status") != "available" {
				t.Fatalf("after release: %s", p.Text("#booking"))
			}
			if e.Count(t, `SELECT count(*) FROM holds WHERE id = $1 AND state = 'CANCELLED'`, holdID) != 1 {
				t.Fatal("the hold is not cancelled")
			}
		})
	})

	t.Run("after a release nothing is picked, and the form's key with other seats is a new hold", func(t *testing.T) {
		b := e.PageUser(t)
		p := b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"H5"}, "key": {"render-stale"}})
		webtest.Want200(t, p)
		pay := p.Attr(`#checkout form[action$="/pay"]`, "action")
		holdID := strings.TrimSuffix(strings.TrimPrefix(pay, "/holds/"), "/pay")
		p = b.HtmxPost(t, "/holds/"+holdID+"/release", url.Values{"show": {fmt.Sprint(e.Show)}})
		webtest.Want200(t, p)
		if p.Has(`#seatmap button.seat[aria-pressed="true"]`) || p.Has(`[data-selected-inputs] input`) {
			t.Fatalf("after Release the released seats are picked again: %s", p.Text("[data-selection-summary]"))
		}
		if got := p.Text("[data-selection-summary]"); got != "No seats selected yet." {
			t.Fatalf("after Release the summary says %q", got)
		}
		// The page the shopper came back to (Back, an old tab) still
		// carries the first form's key; with other seats it must hold them.
		p = b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"H7", "H8"}, "key": {"render-stale"}})
		webtest.Want200(t, p)
		if !p.Has("#checkout") || p.Attr("#seat-H7", "data-status") != "mine" || p.Attr("#seat-H8", "data-status") != "mine" {
			t.Fatalf("the old key with new seats did not hold them: %s", p.Text("#booking"))
		}
		if strings.Contains(p.Body, "Idempotency") {
			t.Fatalf("developer wording on the page: %s", p.Text("#booking"))
		}
	})

	t.Run("show pages and their fragments are never cached", func(t *testing.T) {
		b := e.PageUser(t)
		for path, r := range map[string]*webtest.HTMLDoc{e.ShowPath(): b.Get(t, e.ShowPath()), e.ShowPath() + "/booking": b.HtmxGet(t, e.ShowPath()+"/booking")} {
			if got := r.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("%s: Cache-Control %q, want no-store", path, got)
			}
		}
	})

	t.Run("a conflict names the taken seats and keeps the rest", func(t *testing.T) {
		e.User(t).MustHold(t, "E2")
		b := e.PageUser(t)
		p := b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"E1", "E2", "E3"}, "key": {"render-2"}})
		webtest.WantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.Text("[data-notice]"), "Seat E2 is no longer available") {
			t.Fatalf("notice = %q", p.Text("[data-notice]"))
		}
		for _, id := range []string{"E1", "E3"} {
			if p.Attr("#seat-"+id, "aria-pressed") != "true" || !p.Has(`[data-selected-inputs] input[value="`+id+`"]`) {
				t.Errorf("%s is no longer selected", id)
			}
		}
		if p.Attr("#seat-E2", "data-status") != "held" || p.Attr("#seat-E2", "data-taken") != "true" || p.Has(`[data-selected-inputs] input[value="E2"]`) {
			t.Error("E2 is not shown as taken")
		}
		if p.Attr(`input[name="key"]`, "value") == "render-2" {
			t.Error("the new form reuses the old key")
		}
		if e.Count(t, `SELECT count(*) FROM show_seats WHERE show_id = $1 AND seat_id IN ('E1','E3') AND status = 'AVAILABLE'`, e.Show) != 2 {
			t.Fatal("a refused hold claimed seats")
		}
	})

	t.Run("unknown and too many seats get a clear message", func(t *testing.T) {
		b := e.PageUser(t)
		p := b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"F1", "Z99"}, "key": {"render-3"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("[data-notice]"), "no seat Z99") || p.Attr("#seat-F1", "aria-pressed") != "true" {
			t.Fatalf("unknown seat: %s", p.Text("[data-notice]"))
		}
		p = b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "G10", "H1"}, "key": {"render-4"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("[data-notice]"), "at most 10 seats") {
			t.Fatalf("too many: %s", p.Text("[data-notice]"))
		}
		p = b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"key": {"render-5"}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		if !strings.Contains(p.Text("[data-notice]"), "Pick at least one seat") {
			t.Fatalf("no seats: %s", p.Text("[data-notice]"))
		}
	})

	t.Run("a hold without the CSRF token is refused and changes nothing", func(t *testing.T) {
		b := e.PageUser(t)
		before := e.Snapshot(t)
		p := b.Send(t, "POST", e.ShowPath()+"/hold", url.Values{"seat": {"H5"}, "key": {"x"}}, map[string]string{"HX-Request": "true"})
		webtest.WantFriendly(t, p, http.StatusForbidden)
		if p.Header.Get("HX-Retarget") != "#flash" || !p.Has("[role=alert]") || strings.Contains(p.Body, "<html") {
			t.Fatalf("htmx error is not a fragment for #flash: %s", p)
		}
		p = b.Send(t, "POST", e.ShowPath()+"/hold", url.Values{"seat": {"H5"}, "key": {"x"}, "_csrf": {"wrong"}}, nil)
		webtest.WantFriendly(t, p, http.StatusForbidden)
		if !p.Has("h1#error-title") {
			t.Fatalf("not an error page: %s", p)
		}
		if e.Snapshot(t) != before {
			t.Fatal("a refused hold changed something")
		}
	})

	t.Run("seats taken while a guest logged in are named", func(t *testing.T) {
		e.User(t).MustHold(t, "I2")
		b := e.PageUser(t)
		p := b.Get(t, e.ShowPath()+"?seats=I1,I2")
		webtest.Want200(t, p)
		if !strings.Contains(p.Text("[data-notice]"), "I2") || p.Attr("#seat-I1", "aria-pressed") != "true" || p.Attr("#seat-I2", "aria-pressed") == "true" {
			t.Fatalf("preselection: %s", p.Text("#booking"))
		}
	})

	t.Run("an unknown show is a friendly 404", func(t *testing.T) {
		for _, path := range []string{"/shows/987654", "/shows/abc", "/shows/987654/seatmap"} {
			webtest.WantFriendly(t, e.Browser().Get(t, path), http.StatusNotFound)
		}
	})

	t.Run("the countdown's refresh says the hold expired", func(t *testing.T) {
		b := e.PageUser(t)
		p := b.HtmxGet(t, e.ShowPath()+"/booking?expired=1")
		webtest.Want200(t, p)
		if !strings.Contains(p.Text("[data-notice]"), "Your hold expired") || !p.Has("form[data-hold-form]") {
			t.Fatalf("expired refresh: %s", p.Text("#booking"))
		}
	})
}

func TestShowPageClosedShow(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithClock)
	e.Clock.Advance(73 * time.Hour) // the show started an hour ago
	p := e.PageUser(t).Get(t, e.ShowPath())
	webtest.Want200(t, p)
	if p.Has("form[data-hold-form]") || !strings.Contains(p.Text("#booking"), "no longer on sale") {
		t.Fatalf("a started show offers seats: %s", p.Text("#booking"))
	}
}

func TestShowPageHoldElsewhere(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	other := pgtest.NewShow(t, e.Store, e.Venue, 3, 3, time.Now().Add(96*time.Hour))
	b := e.PageUser(t)
	b.API().MustHold(t, "A1")
	otherPath := fmt.Sprintf("/shows/%d", other)

	p := b.Get(t, otherPath)
	webtest.Want200(t, p)
	if !strings.Contains(p.Text("[data-notice]"), "holding seats for another show") || p.Attr("[data-notice] a", "href") != e.ShowPath() {
		t.Fatalf("no pointer to the held seats: %s", p.Text("#booking"))
	}
	p = b.HtmxPost(t, otherPath+"/hold", url.Values{"seat": {"B2"}, "key": {"elsewhere-1"}})
	webtest.WantStatus(t, p, http.StatusConflict)
	if !strings.Contains(p.Text("[data-notice]"), "another show") || p.Attr("#seat-B2", "aria-pressed") != "true" {
		t.Fatalf("hold elsewhere: %s", p.Text("#booking"))
	}
	// The show of the live hold shows it, whatever the page asked for.
	p = b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"C3"}, "key": {"elsewhere-2"}})
	webtest.WantStatus(t, p, http.StatusConflict)
	if !p.Has("#checkout") || !strings.Contains(p.Text("[data-notice]"), "already hold seats for this show") {
		t.Fatalf("hold again in the same show: %s", p.Text("#booking"))
	}
}
