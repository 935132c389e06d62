package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// bestShopper is a signed-up, signed-in browser and its email.
type bestShopper struct {
	*webtest.Browser
	email string
}

func newBestShopper(t *testing.T, e *webtest.Env) bestShopper {
	t.Helper()
	b := e.Browser()
	return bestShopper{Browser: b, email: b.Signup(t)}
}

// held is the seats of the shopper's live hold of show, in text order,
// comma-separated ("" for none).
func (b bestShopper) held(t *testing.T, show int64) string {
	t.Helper()
	return pgtest.Scalar[string](t, b.E.Store.Pool(), `
		SELECT coalesce(string_agg(s, ',' ORDER BY s), '') FROM holds h JOIN users u ON u.id = h.user_id, unnest(h.seat_ids) s
		 WHERE h.show_id = $1 AND h.state = 'HELD' AND u.email = $2`, show, b.email)
}

// bestForm is the fields of the best available form asking for count seats.
func bestForm(count int, more ...string) url.Values {
	f := url.Values{"count": {fmt.Sprint(count)}, "key": {fmt.Sprintf("best-%d", time.Now().UnixNano())}}
	for i := 0; i+1 < len(more); i += 2 {
		f.Set(more[i], more[i+1])
	}
	return f
}

func TestBestSeatsForm(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)

	t.Run("the show page asks how many seats, of which type", func(t *testing.T) {
		p := newBestShopper(t, e).Get(t, e.ShowPath())
		webtest.Want200(t, p)
		form := `form[data-best-form]`
		if p.Attr(form, "action") != e.ShowPath()+"/best" || p.Attr(form, "hx-post") != e.ShowPath()+"/best" || p.Attr(form, "method") != "post" ||
			!p.Has(form+` input[name="key"]`) || !p.Has(form+` input[name="_csrf"]`) {
			t.Fatalf("no best available form posting to the show: %s", p.Doc.Find(form).Text())
		}
		var counts []string
		p.Doc.Find(`#best-count option`).Each(func(_ int, o *goquery.Selection) { counts = append(counts, o.Text()) })
		if fmt.Sprint(counts) != "[1 2 3 4 5 6 7 8 9 10]" || p.Attr(`#best-count option[selected]`, "value") != "2" {
			t.Fatalf("counts %v, chosen %q", counts, p.Attr(`#best-count option[selected]`, "value"))
		}
		if got := p.Text(`label[for="best-count"]`); got != "How many seats?" {
			t.Fatalf("the count is labelled %q", got)
		}
		var types []string
		p.Doc.Find(`#best-type option`).Each(func(_ int, o *goquery.Selection) {
			v, _ := o.Attr("value")
			types = append(types, v+"="+o.Text())
		})
		if strings.Join(types, "; ") != "=Any; STANDARD=Standard · ₹250; PREMIUM=Premium · ₹450" {
			t.Fatalf("seat types: %v", types)
		}
		if p.Has(`#best-wheelchairs`) {
			t.Fatal("a hall without wheelchair spaces asks about wheelchairs")
		}
		if p.Text(`[data-best-button]`) != "Find best seats" {
			t.Fatalf("button: %q", p.Text(`[data-best-button]`))
		}
		// The hand-picking form is still there, as it was.
		if !p.Has(`form[data-hold-form] #seatmap`) || p.Attr(`form[data-hold-form]`, "hx-post") != e.ShowPath()+"/hold" {
			t.Fatal("the hold form changed")
		}
	})

	t.Run("a guest logs in first and comes back with the form filled in", func(t *testing.T) {
		b := e.Browser()
		if got := b.Get(t, e.ShowPath()).Text(`[data-best-button]`); got != "Log in to find best seats" {
			t.Fatalf("a guest's button says %q", got)
		}
		p := b.Submit(t, e.ShowPath()+"/best", bestForm(3, "category", "PREMIUM"))
		next := e.ShowPath() + "?category=PREMIUM&count=3"
		webtest.WantSeeOther(t, p, "/login?next="+url.QueryEscape(next))
		p = b.Get(t, next)
		if p.Attr(`#best-count option[selected]`, "value") != "3" || p.Attr(`#best-type option[selected]`, "value") != "PREMIUM" {
			t.Fatalf("back from logging in the form asks for %q of %q", p.Attr(`#best-count option[selected]`, "value"), p.Attr(`#best-type option[selected]`, "value"))
		}
		if n := e.Count(t, `SELECT count(*) FROM holds`); n != 0 {
			t.Fatalf("a guest's request made %d holds", n)
		}
	})

	t.Run("a hall with wheelchair spaces asks how many of the party use one", func(t *testing.T) {
		show := wheelchairShow(t, e)
		b := newBestShopper(t, e)
		p := b.Get(t, fmt.Sprintf("/shows/%d", show))
		var options []string
		p.Doc.Find(`#best-wheelchairs option`).Each(func(_ int, o *goquery.Selection) { options = append(options, o.Text()) })
		if fmt.Sprint(options) != "[0 1 2]" || p.Attr(`#best-wheelchairs option[selected]`, "value") != "0" || p.Text(`label[for="best-wheelchairs"]`) != "Wheelchair users" {
			t.Fatalf("wheelchair users offered: %v (chosen %q)", options, p.Attr(`#best-wheelchairs option[selected]`, "value"))
		}
		// One of two with a wheelchair: the space and the seat beside it.
		webtest.WantSeeOther(t, b.Submit(t, fmt.Sprintf("/shows/%d/best", show), bestForm(2, "wheelchairs", "1")), fmt.Sprintf("/shows/%d", show))
		if got := b.held(t, show); got != "E3,E4" {
			t.Fatalf("held %q, want the wheelchair space E3 and its companion seat E4", got)
		}
	})
}

// wheelchairShow is a show in the env's venue on a 5 x 8 screen whose row E
// has wheelchair spaces at E3 and E6, each with a companion seat beside.
func wheelchairShow(t *testing.T, e *webtest.Env) int64 {
	t.Helper()
	seats := pgtest.Grid(5, 8)
	for i := range seats {
		switch seats[i].ID {
		case "E3", "E6":
			seats[i].Accessible = true
		case "E4", "E5":
			seats[i].Companion = true
		}
	}
	ctx := context.Background()
	screen, err := e.Store.CreateScreen(ctx, e.Venue.TheatreID, fmt.Sprintf("Access %d", time.Now().UnixNano()), seats)
	if err != nil {
		t.Fatal(err)
	}
	start := e.Now().Add(96 * time.Hour)
	show, err := e.Store.CreateShow(ctx, catalog.Show{MovieID: e.Venue.MovieID, ScreenID: screen, StartsAt: start, EndsAt: start.Add(2 * time.Hour),
		Currency: "INR", Prices: pgtest.Prices})
	if err != nil {
		t.Fatal(err)
	}
	return show
}

func TestFindBestSeats(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)

	t.Run("without JavaScript: a plain post holds the best 3 at once, and the page shows them", func(t *testing.T) {
		b := newBestShopper(t, e)
		p := b.Submit(t, e.ShowPath()+"/best", bestForm(3))
		webtest.WantSeeOther(t, p, e.ShowPath())
		// Two thirds back on the centre line of 10 rows of 10: row G.
		if got := b.held(t, e.Show); got != "G4,G5,G6" {
			t.Fatalf("held %q, want G4, G5, G6", got)
		}
		p = b.Get(t, e.ShowPath())
		webtest.Want200(t, p)
		if got := p.Text(`[data-notice]`); !strings.Contains(got, "We found you 3 seats together in row G.") {
			t.Fatalf("notice: %q", got)
		}
		panel := p.Text("#checkout")
		for _, want := range []string{"G4", "G5", "G6", "Total₹750", "Pay ₹750", "Choose other seats"} {
			if !strings.Contains(panel, want) {
				t.Fatalf("the checkout panel %q lacks %q", panel, want)
			}
		}
		if _, err := time.Parse(time.RFC3339Nano, p.Attr("[data-countdown]", "data-expires-at")); err != nil || !p.Has("[data-countdown-display]") {
			t.Fatalf("no countdown: %v", err)
		}
		if strings.Contains(panel, "Release seats") || p.Has(`form[data-best-form]`) {
			t.Fatal("the panel offers the hand-picked hold's release, or the form asks again")
		}
		for _, id := range []string{"G4", "G5", "G6"} {
			if p.Attr("#seat-"+id, "data-status") != "mine" {
				t.Fatalf("%s is %q on the map, want mine", id, p.Attr("#seat-"+id, "data-status"))
			}
		}

		t.Run("Choose other seats releases them and goes back to picking", func(t *testing.T) {
			release := p.Attr(`#checkout form[hx-post$="/release"]`, "action")
			if !strings.HasSuffix(release, "/release") || p.Text(`#checkout form[hx-post$="/release"] button`) != "Choose other seats" {
				t.Fatalf("release form %q says %q", release, p.Text(`#checkout form[hx-post$="/release"] button`))
			}
			webtest.WantSeeOther(t, b.Submit(t, release, url.Values{"show": {fmt.Sprint(e.Show)}}), e.ShowPath())
			if got := b.held(t, e.Show); got != "" {
				t.Fatalf("still held: %s", got)
			}
			p := b.Get(t, e.ShowPath())
			if !p.Has(`form[data-best-form]`) || !p.Has(`form[data-hold-form]`) || p.Has("#checkout") || p.Attr("#seat-G5", "data-status") != "available" {
				t.Fatalf("after choosing other seats: %s", p.Text("#booking"))
			}
		})
	})

	t.Run("with htmx: the booking section comes back held, and a double submit is the same hold", func(t *testing.T) {
		b := newBestShopper(t, e)
		form := bestForm(2, "category", "PREMIUM")
		p := b.HtmxPost(t, e.ShowPath()+"/best", form)
		webtest.Want200(t, p)
		if strings.Contains(p.Body, "<html") || !p.Has("section#booking #checkout") {
			t.Fatalf("not the booking section with a checkout panel: %s", p)
		}
		if got := p.Text(`[data-notice]`); !strings.Contains(got, "We found you 2 seats together in row J.") || !strings.Contains(p.Text("#checkout"), "Pay ₹900") {
			t.Fatalf("notice %q, panel %q", got, p.Text("#checkout"))
		}
		first := b.held(t, e.Show)
		again := b.HtmxPost(t, e.ShowPath()+"/best", form)
		webtest.Want200(t, again)
		if got := b.held(t, e.Show); got != first || e.Count(t, `SELECT count(*) FROM holds WHERE show_id = $1 AND state = 'HELD' AND 'J5' = ANY (seat_ids)`, e.Show) != 1 {
			t.Fatalf("a double submit held %q after %q", got, first)
		}
		holdID := pgtest.Scalar[string](t, e.Store.Pool(), `SELECT id::text FROM holds WHERE show_id = $1 AND state = 'HELD' AND 'J5' = ANY (seat_ids)`, e.Show)
		webtest.Want200(t, b.HtmxPost(t, "/holds/"+holdID+"/release", url.Values{"show": {fmt.Sprint(e.Show)}}))
	})

	t.Run("apart, the page says so in plain words", func(t *testing.T) {
		e := webtest.NewEnv(t)
		// The fifth seat of every row taken: no row has 6 side by side.
		var col []string
		for r := 'A'; r <= 'J'; r++ {
			col = append(col, fmt.Sprintf("%c5", r))
		}
		e.User(t).MustHold(t, col...)
		b := newBestShopper(t, e)
		webtest.WantSeeOther(t, b.Submit(t, e.ShowPath()+"/best", bestForm(6)), e.ShowPath())
		if got := b.held(t, e.Show); got != "F6,G10,G6,G7,G8,G9" {
			t.Fatalf("held %q", got)
		}
		p := b.Get(t, e.ShowPath())
		if got := p.Text(`[data-notice]`); !strings.HasPrefix(got, "We could not seat all 6 together: 5 in row G and 1 in row F.") {
			t.Fatalf("notice: %q", got)
		}
		if p.Attr(`[data-notice]`, "role") != "alert" || !strings.Contains(p.Text("#checkout"), "Choose other seats") {
			t.Fatal("the news is not an alert, or the panel offers no other seats")
		}
	})

	t.Run("too few seats of a type: a plain message, the form kept, nothing held", func(t *testing.T) {
		e.User(t).MustHold(t, "J1", "J2", "J3", "J4", "J5", "J6", "J7")
		b := newBestShopper(t, e)
		before := e.Snapshot(t)
		p := b.Submit(t, e.ShowPath()+"/best", bestForm(4, "category", "PREMIUM"))
		webtest.WantFriendly(t, p, http.StatusConflict)
		if got := p.Text(`[data-notice] p:first-child`) + " " + p.Text(`[data-notice] p + p`); got != "Only 3 seats are left in Premium. Ask for fewer seats, or another seat type." {
			t.Fatalf("notice: %q", got)
		}
		if p.Attr(`#best-count option[selected]`, "value") != "4" || p.Attr(`#best-type option[selected]`, "value") != "PREMIUM" {
			t.Fatal("the form forgot what was asked")
		}
		if after := e.Snapshot(t); after != before || b.held(t, e.Show) != "" {
			t.Fatal("a refused request changed the seats")
		}
	})

	t.Run("bad input is a 422 a person understands, nothing held", func(t *testing.T) {
		b := newBestShopper(t, e)
		before := e.Snapshot(t)
		for _, tc := range []struct {
			form url.Values
			says string
		}{
			{bestForm(0), "Choose how many seats you want, from 1 to 10."},
			{bestForm(11), "Choose how many seats you want, from 1 to 10."},
			{url.Values{"count": {"three"}}, "Choose how many seats you want, from 1 to 10."},
			{bestForm(2, "wheelchairs", "3"), "at most as many as the seats you want"},
			{bestForm(2, "wheelchairs", "-1"), "at most as many as the seats you want"},
			{bestForm(2, "category", "RECLINER"), "This show has no Recliner seats"},
			{bestForm(2, "category", "lower; drop"), "Choose a seat type from the list."},
		} {
			for _, htmx := range []bool{false, true} {
				send := b.Submit
				if htmx {
					send = b.HtmxPost
				}
				p := send(t, e.ShowPath()+"/best", tc.form)
				webtest.WantFriendly(t, p, http.StatusUnprocessableEntity)
				if got := p.Text(`[data-notice]`); !strings.Contains(got, tc.says) {
					t.Fatalf("%v: notice %q, want %q", tc.form, got, tc.says)
				}
			}
		}
		if after := e.Snapshot(t); after != before {
			t.Fatal("bad input changed the seats")
		}
	})

	t.Run("a hand-picked hold is as it was: Release seats, nothing said of groups", func(t *testing.T) {
		b := newBestShopper(t, e)
		webtest.WantSeeOther(t, b.Submit(t, e.ShowPath()+"/best", bestForm(1)), e.ShowPath())
		p := b.Get(t, e.ShowPath())
		webtest.WantSeeOther(t, b.Submit(t, p.Attr(`#checkout form[hx-post$="/release"]`, "action"), url.Values{"show": {fmt.Sprint(e.Show)}}), e.ShowPath())
		p = b.HtmxPost(t, e.ShowPath()+"/hold", url.Values{"seat": {"A1", "C9"}, "key": {"apart-by-hand"}})
		webtest.Want200(t, p)
		if got := p.Text(`#checkout form[hx-post$="/release"] button`); got != "Release seats" || p.Has(`[data-notice]`) {
			t.Fatalf("a hand-picked hold's panel: release %q, notice %q", got, p.Text(`[data-notice]`))
		}
		if p = b.Get(t, e.ShowPath()); p.Has(`[data-notice]`) || !slices.Contains(strings.Fields(p.Text("#checkout")), "Release") {
			t.Fatalf("reloaded: %s", p.Text("#booking"))
		}
	})
}
