package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestBrowsePages(t *testing.T) {
	e := newEnv(t)
	slug := e.citySlug(t)
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	// A small show tomorrow, sold out; and one that started an hour ago.
	soldOut := pgtest.NewShow(t, e.store, e.venue, 1, 2, time.Now().Add(26*time.Hour))
	u := e.user(t)
	want(t, u.holdOn(soldOut, "sold-out", "A1", "A2"), http.StatusCreated)
	started := pgtest.NewShow(t, e.store, e.venue, 1, 1, time.Now().Add(-time.Hour))
	showDay := time.Now().Add(72 * time.Hour).In(kolkata).Format(time.DateOnly)
	soldDay := time.Now().Add(26 * time.Hour).In(kolkata).Format(time.DateOnly)

	t.Run("the city page lists movies of the week with a date strip", func(t *testing.T) {
		b := e.browser()
		p := b.get(t, "/cities/"+slug)
		want200(t, p)
		if !strings.Contains(p.text("h1"), "Testville") || !strings.Contains(p.text("main"), "The Last Algorithm") {
			t.Fatalf("city page: %s", p.text("main"))
		}
		if n := p.Doc.Find(`nav[aria-label="Choose a day"] li`).Length(); n != 7 {
			t.Fatalf("date strip has %d days", n)
		}
		if p.attr(`nav[aria-label="Choose a day"] a[href$="date=`+showDay+`"]`, "href") == "" {
			t.Error("the show's day is not a link in the strip")
		}
		remembered := false
		for _, ck := range p.Header.Values("Set-Cookie") {
			remembered = remembered || strings.HasPrefix(ck, "marquee_city="+slug)
		}
		if !remembered {
			t.Error("the city is not remembered")
		}
		if p.attr(`a[href^="/movies/`+fmt.Sprint(e.venue.MovieID)+`?city=`+slug+`"]`, "href") == "" {
			t.Error("no link to the movie page")
		}
		wantFriendly(t, b.get(t, "/cities/atlantis"), http.StatusNotFound)
	})

	t.Run("the movie page lists theatres and showtimes; sold out says so", func(t *testing.T) {
		b := e.browser()
		p := b.get(t, fmt.Sprintf("/movies/%d?city=%s&date=%s", e.venue.MovieID, slug, showDay))
		want200(t, p)
		if p.attr(fmt.Sprintf(`a[href="/shows/%d"]`, e.show), "href") == "" || !strings.Contains(p.text("main"), "Test Cinema") {
			t.Fatalf("movie page: %s", p.text("main"))
		}
		p = b.get(t, fmt.Sprintf("/movies/%d?city=%s&date=%s", e.venue.MovieID, slug, soldDay))
		want200(t, p)
		if p.has(fmt.Sprintf(`a[href="/shows/%d"]`, soldOut)) || !strings.Contains(p.text("main"), "Sold out") {
			t.Fatalf("a sold-out show is offered: %s", p.text("main"))
		}
		if strings.Contains(p.Body, fmt.Sprintf("/shows/%d", started)) {
			t.Fatal("a started show is offered")
		}
		wantFriendly(t, b.get(t, "/movies/987654?city="+slug), http.StatusNotFound)
		wantSeeOther(t, e.browser().get(t, fmt.Sprintf("/movies/%d", e.venue.MovieID)), "/?choose=1")
	})

	t.Run("the theatre page lists its shows in its time zone", func(t *testing.T) {
		show, err := e.store.Show(context.Background(), e.show)
		if err != nil {
			t.Fatal(err)
		}
		p := e.browser().get(t, fmt.Sprintf("/theatres/%d?date=%s", e.venue.TheatreID, showDay))
		want200(t, p)
		wantTime := show.StartsAt.In(kolkata).Format("3:04 PM")
		if !strings.Contains(p.text(fmt.Sprintf(`a[href="/shows/%d"]`, e.show)), wantTime) || !strings.Contains(p.text("main"), "IST") {
			t.Fatalf("theatre page (want %s): %s", wantTime, p.text("main"))
		}
		wantFriendly(t, e.browser().get(t, "/theatres/987654"), http.StatusNotFound)
	})
}
