package pages_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// Seats that would leave one empty on its own: the show page says so in a
// moviegoer's words and offers the nearest seats that do not, held by its
// own form; the seats picked stay picked. With or without htmx.
func TestShowPageOrphanSeat(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	if err := pgtest.SetOrphanRule(t.Context(), e.Store, e.Venue.TheatreID, true); err != nil {
		t.Fatal(err)
	}
	e.User(t).MustHold(t, "C1", "C2", "C3")
	picked := url.Values{"seat": {"C5", "C6", "C7"}, "key": {"page-orphan"}} // C4 alone between C3 and C5

	for _, htmx := range []bool{false, true} { // the last takes the offer
		b := e.PageUser(t)
		var p *webtest.HTMLDoc
		if htmx {
			p = b.HtmxPost(t, e.ShowPath()+"/hold", picked)
		} else {
			p = b.Submit(t, e.ShowPath()+"/hold", picked)
		}
		webtest.WantStatus(t, p, http.StatusConflict)
		offer := "#booking [data-orphan-offer][role=alert]"
		if got := p.Text(offer + " #orphan-problem"); got != "That would leave C4 empty on its own." {
			t.Fatalf("htmx %v: the problem says %q\n%s", htmx, got, p.Text("main"))
		}
		if got := p.Text(offer + " #orphan-question"); got != "Take C4–C6 instead? Or keep choosing your own." {
			t.Fatalf("htmx %v: the question says %q", htmx, got)
		}
		take := offer + " form[hx-post$='/hold']"
		if got := p.Text(take + " button[type=submit]"); got != "Take C4–C6" {
			t.Fatalf("htmx %v: the button says %q", htmx, got)
		}
		var seats []string
		p.Doc.Find(take + " input[name=seat]").Each(func(_ int, s *goquery.Selection) { seats = append(seats, s.AttrOr("value", "")) })
		if len(seats) != 3 || seats[0] != "C4" || seats[2] != "C6" || p.Attr(take+" input[name=key]", "value") == picked.Get("key") {
			t.Fatalf("htmx %v: the offer's form holds %v under key %q", htmx, seats, p.Attr(take+" input[name=key]", "value"))
		}
		if !p.Has(offer+" button[type=button][data-keep-choosing]") || p.Has("[data-hold-form] [data-orphan-offer]") {
			t.Fatalf("htmx %v: no way to keep choosing, or the offer inside the hold form", htmx)
		}
		for _, id := range []string{"C5", "C6", "C7"} {
			if p.Attr("#seat-"+id, "aria-pressed") != "true" {
				t.Fatalf("htmx %v: %s is no longer picked", htmx, id)
			}
		}
		if n := e.Count(t, `SELECT count(*) FROM holds WHERE state = 'HELD'`); n != 1 {
			t.Fatalf("htmx %v: %d holds, want only C1-C3's", htmx, n)
		}
		if htmx {
			// The offer taken: its own form, as the page sends it.
			form := url.Values{"seat": seats, "key": {p.Attr(take+" input[name=key]", "value")}}
			held := b.HtmxPost(t, e.ShowPath()+"/hold", form)
			webtest.Want200(t, held)
			if !held.Has("#checkout") || held.Has("[data-orphan-offer]") {
				t.Fatalf("after taking the offer: %s", held.Text("#booking"))
			}
		}
	}
}
