package pages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// TestCompanionSeatsInBrowser: a moviegoer sees which seats are companion
// seats, beside the wheelchair spaces, on a desktop and on a phone: each
// has a mark of its own (not a colour alone), the legend says what the
// mark means, and a screen reader hears it in the seat's name. A seat that
// is not a companion seat says nothing of the kind.
func TestCompanionSeatsInBrowser(t *testing.T) {
	t.Parallel()
	axeSource(t)
	browser := startChromium(t)
	logScreenshots(t)
	s := newSite(t, siteConfig{live: true})
	show := s.companionShow()
	for _, vp := range []viewport{desktop, phone} {
		tb := s.openTab(t, browser, "companion-"+vp.name, vp)
		tb.openShow(show)
		marked := eval[[]string](tb, `[...document.querySelectorAll('#seatmap button.seat')]
			.filter(b => b.querySelector('[data-companion-mark]')).map(b => b.dataset.seat)`)
		if strings.Join(marked, ",") != "E4,E5" {
			t.Fatalf("%s: the seats with a companion mark are %q, want E4 and E5", vp.name, marked)
		}
		visible := eval[bool](tb, `(() => {
			const r = document.querySelector('#seat-E4 [data-companion-mark]').getBoundingClientRect();
			return r.width >= 8 && r.height >= 8;
		})()`)
		if !visible {
			t.Errorf("%s: the companion mark of E4 is not drawn", vp.name)
		}
		wantText(t, vp.name+" legend", tb.Text(`#seatmap [data-legend="companion"]`), "Companion seat")
		if !eval[bool](tb, `!!document.querySelector('#seatmap [data-legend="companion"] [data-companion-mark]')`) {
			t.Errorf("%s: the legend's companion entry does not show the mark", vp.name)
		}
		// The names as a screen reader has them: from the accessibility
		// tree on a desktop; a phone's overview keeps the rows out of sight
		// out of it, so there the label they will have.
		names := tb.seatNames()
		if vp.mobile {
			names = eval[map[string]string](tb, `Object.fromEntries([...document.querySelectorAll('#seatmap button.seat')].map(b => [b.dataset.seat, b.getAttribute("aria-label")]))`)
		}
		for _, id := range []string{"E4", "E5"} {
			if !strings.Contains(names[id], "companion seat") {
				t.Errorf("%s: seat %s is named %q: want it to say it is a companion seat", vp.name, id, names[id])
			}
		}
		if strings.Contains(names["E2"], "companion") {
			t.Errorf("%s: seat E2 is named %q, as if it were a companion seat", vp.name, names["E2"])
		}
		tb.look("show with companion seats")
	}
}

// companionShow is a show three days ahead on a 5 x 8 screen whose row E
// has wheelchair spaces at E3 and E6, each with a companion seat beside.
func (s *site) companionShow() int64 {
	s.t.Helper()
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
	venue := pgtest.NewVenue(s.t, s.Store)
	screen, err := s.Store.CreateScreen(ctx, venue.TheatreID, fmt.Sprintf("Access %d", time.Now().UnixNano()), seats)
	if err != nil {
		s.t.Fatal(err)
	}
	start := time.Now().Add(72 * time.Hour)
	show, err := s.Store.CreateShow(ctx, catalog.Show{MovieID: venue.MovieID, ScreenID: screen, StartsAt: start, EndsAt: start.Add(2 * time.Hour),
		Currency: "INR", Prices: pgtest.Prices})
	if err != nil {
		s.t.Fatal(err)
	}
	return show
}
