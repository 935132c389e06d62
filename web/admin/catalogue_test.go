package admin_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// movieForm is the details form of the env's movie with the changes given.
func movieForm(changes map[string]string) url.Values {
	f := url.Values{"title": {"The Last Algorithm"}, "duration_minutes": {"120"}, "rating": {""},
		"language": {""}, "genres": {""}, "synopsis": {""}}
	for k, v := range changes {
		f.Set(k, v)
	}
	return f
}

func TestEditMoviePage(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	b := signedIn(t, e, auth.RolePlatformAdmin)
	path := fmt.Sprintf("/admin/movies/%d", e.Venue.MovieID)
	movie := func() string {
		return pgtest.Scalar[string](t, e.Store.Pool(), `SELECT format('%s|%s|%s|%s', title, duration_minutes, rating, genres) FROM movies WHERE id = $1`, e.Venue.MovieID)
	}
	was := movie()

	p := b.Get(t, path)
	webtest.Want200(t, p)
	if p.Attr("#title", "value") != "The Last Algorithm" || p.Attr("#duration_minutes", "value") != "120" {
		t.Fatalf("the form does not start from the movie: %s", p)
	}
	if hint := p.Text("#duration_minutes-hint"); !strings.Contains(hint, "has not started by the difference") {
		t.Fatalf("the running time does not say what changing it does: %q", hint)
	}

	t.Run("every mistake at once, what was typed kept", func(t *testing.T) {
		p := b.Submit(t, path, movieForm(map[string]string{"title": " ", "duration_minutes": "two hours", "rating": strings.Repeat("R", 30), "genres": "Noir"}))
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		wantField(t, p, "title", "title of 1 to 200")
		wantField(t, p, "duration_minutes", "whole number")
		wantField(t, p, "rating", "20 characters")
		if p.Attr("#duration_minutes", "value") != "two hours" || p.Attr("#genres", "value") != "Noir" {
			t.Fatal("the form forgot what was typed")
		}
		if n := p.Doc.Find("#movie-form-error li").Length(); n != 3 {
			t.Fatalf("the summary lists %d mistakes, want 3", n)
		}
		if movie() != was {
			t.Fatalf("a refused form changed the movie to %s", movie())
		}
	})
	t.Run("saved, and the shows to come end later", func(t *testing.T) {
		before := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT ends_at FROM shows WHERE id = $1`, e.Show)
		p := b.Submit(t, path, movieForm(map[string]string{"title": "The Lost Algorithm", "duration_minutes": "135", "genres": "Drama, Sci-Fi"}))
		if p.Status != http.StatusSeeOther {
			t.Fatalf("save: %s", p)
		}
		p = b.Get(t, p.Header.Get("Location"))
		if got := p.Text("[data-notice]"); !strings.Contains(got, "1 upcoming show now ends 15 minutes later") {
			t.Fatalf("notice = %q", got)
		}
		if movie() != "The Lost Algorithm|135||{Drama,Sci-Fi}" {
			t.Fatalf("movie = %s", movie())
		}
		after := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT ends_at FROM shows WHERE id = $1`, e.Show)
		if after.Sub(before) != 15*time.Minute {
			t.Fatalf("the show ends %v later", after.Sub(before))
		}
	})
	t.Run("a running time that makes a show run into the next lists them", func(t *testing.T) {
		screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
		ends := pgtest.Scalar[time.Time](t, e.Store.Pool(), `SELECT ends_at FROM shows WHERE id = $1`, e.Show)
		next, err := e.Store.CreateShow(t.Context(), catalog.Show{MovieID: e.Venue.MovieID, ScreenID: screen,
			StartsAt: ends.Add(10 * time.Minute), EndsAt: ends.Add(3 * time.Hour), Currency: "INR", Prices: pgtest.Prices})
		if err != nil {
			t.Fatal(err)
		}
		p := b.Submit(t, path, movieForm(map[string]string{"title": "The Lost Algorithm", "duration_minutes": "160"}))
		webtest.WantStatus(t, p, http.StatusConflict)
		wantField(t, p, "duration_minutes", "run into the next show")
		clashes := p.Doc.Find("[data-runtime-clashes]")
		if clashes.Length() != 1 || !p.Has(fmt.Sprintf(`[data-runtime-clashes] a[href="/admin/shows/%d"]`, e.Show)) ||
			!p.Has(fmt.Sprintf(`[data-runtime-clashes] a[href="/admin/shows/%d"]`, next)) {
			t.Fatalf("the clashes are not listed with links to both shows: %s", p)
		}
		if movie() != "The Lost Algorithm|135||{Drama,Sci-Fi}" {
			t.Fatalf("a refused running time changed the movie to %s", movie())
		}
	})
}

func TestRenameAndRetireScreenPages(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	b := signedIn(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	path := fmt.Sprintf("/admin/screens/%d", screen)
	theatre := fmt.Sprintf("/admin/theatres/%d", e.Venue.TheatreID)

	t.Run("renamed", func(t *testing.T) {
		p := b.Submit(t, path+"/name", url.Values{"name": {"  "}})
		webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
		wantField(t, p, "screen-name", "name of 1 to 60")
		webtest.WantSeeOther(t, b.Submit(t, path+"/name", url.Values{"name": {"Audi 1"}}), path+"?renamed=1")
		if p := b.Get(t, path+"?renamed=1"); !strings.Contains(p.Text("h1"), "Audi 1") || !strings.Contains(p.Text("#editor-notice"), "Audi 1") {
			t.Fatalf("renamed page: %q, %q", p.Text("h1"), p.Text("#editor-notice"))
		}
	})
	t.Run("not retired while a show is to come, which is listed with a link", func(t *testing.T) {
		p := b.Submit(t, path+"/retire", url.Values{})
		webtest.WantStatus(t, p, http.StatusConflict)
		if !strings.Contains(p.Text("[data-retire-error]"), "1 show still to come") ||
			!p.Has(fmt.Sprintf(`[data-retire-error] a[href="/admin/shows/%d"]`, e.Show)) {
			t.Fatalf("refusal: %q", p.Text("[data-retire-error]"))
		}
		if e.Count(t, `SELECT count(*) FROM screens WHERE retired_at IS NOT NULL`) != 0 {
			t.Fatal("the screen was retired")
		}
	})
	t.Run("retired once its show is cancelled: out of the schedule's screens, apart on the theatre's page", func(t *testing.T) {
		webtest.Want(t, b.API().Post(fmt.Sprintf("/api/v1/admin/shows/%d/cancel", e.Show), nil), http.StatusOK)
		webtest.WantSeeOther(t, b.Submit(t, path+"/retire", url.Values{}), path+"?retired=1")
		p := b.Get(t, path+"?retired=1")
		if !p.Has("[data-retired]") || !p.Has(`form[action$="/unretire"]`) {
			t.Fatalf("the retired screen's page: %s", p)
		}
		p = b.Get(t, theatre)
		if !p.Has(fmt.Sprintf(`[data-retired-screens] a[href="%s"]`, path)) || p.Has(fmt.Sprintf(`[data-screens] a[href="%s"]`, path)) {
			t.Fatalf("the theatre page does not list the screen apart as retired: %s", p)
		}
		p = b.Get(t, theatre+"/schedule")
		if p.Has(fmt.Sprintf(`option[value="%d"]`, screen)) {
			t.Fatal("the schedule page offers the retired screen")
		}
		f := oneShow(screen, e.Venue.MovieID, time.Now().Add(96*time.Hour).Format(time.DateOnly), "18:00")
		f.Set("currency", "INR")
		p = b.Submit(t, theatre+"/schedule", f)
		if p.Status < 400 || p.Status >= 500 || e.Count(t, `SELECT count(*) FROM shows WHERE screen_id = $1`, screen) != 1 {
			t.Fatalf("a show on the retired screen: %d", p.Status)
		}
	})
	t.Run("back in use", func(t *testing.T) {
		webtest.WantSeeOther(t, b.Submit(t, path+"/unretire", url.Values{}), path+"?unretired=1")
		if p := b.Get(t, theatre+"/schedule"); !p.Has(fmt.Sprintf(`option[value="%d"]`, screen)) {
			t.Fatal("the schedule page does not offer the screen back in use")
		}
	})
}

func TestAddACategoryWithPricesPage(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	b := signedIn(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	screen := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT screen_id FROM shows WHERE id = $1`, e.Show)
	path := fmt.Sprintf("/admin/screens/%d", screen)
	seats := pgtest.Grid(10, 10)
	for i := range seats[:10] {
		seats[i].Category = "VIP"
	}
	layout, _ := json.Marshal(seats)
	vip := func() int64 {
		return e.Count(t, `SELECT (SELECT count(*) FROM show_seats WHERE category = 'VIP') + (SELECT count(*) FROM show_prices WHERE category = 'VIP')`)
	}
	all, one := "newprice-VIP-INR", fmt.Sprintf("newprice-VIP-show-%d", e.Show)

	// The first save asks for the prices, with the layout drawn kept.
	p := b.Submit(t, path+"/seats", url.Values{"seats": {string(layout)}})
	webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
	if !p.Has("#new-prices") || !p.Has("#"+all) || !p.Has("#"+one) || !strings.Contains(p.Text("#editor-notice"), "no price for Vip") {
		t.Fatalf("the prices are not asked for: %s", p)
	}
	if p.Has("#" + all + "-error") {
		t.Fatal("the first time, a field already says it is wrong")
	}
	if !strings.Contains(p.Attr("[data-layout-json]", "value"), `"VIP"`) {
		t.Fatal("the draft was not kept")
	}
	// Nothing given, and a show's price that cannot be read: both named.
	p = b.Submit(t, path+"/seats", url.Values{"seats": {string(layout)}, "prices_asked": {"1"}, one: {"12,50,0"}})
	webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
	if !strings.Contains(p.Text("#"+one+"-error"), "Vip") || p.Attr("#"+one, "value") != "12,50,0" || p.Attr("#"+one, "aria-invalid") != "true" {
		t.Fatalf("the show's price: %q", p.Text("#"+one+"-error"))
	}
	if vip() != 0 {
		t.Fatal("a refused save changed something")
	}
	p = b.Submit(t, path+"/seats", url.Values{"seats": {string(layout)}, "prices_asked": {"1"}})
	wantField(t, p, all, "for every show")
	// One price for all: saved with the layout.
	p = b.Submit(t, path+"/seats", url.Values{"seats": {string(layout)}, "prices_asked": {"1"}, all: {"600"}, one: {""}})
	webtest.WantSeeOther(t, p, path+"?saved=1&priced=1")
	if got := pgtest.Scalar[int64](t, e.Store.Pool(), `SELECT price_minor FROM show_prices WHERE show_id = $1 AND category = 'VIP'`, e.Show); got != 60000 {
		t.Fatalf("the VIP price is %d", got)
	}
	if p := b.Get(t, path+"?saved=1&priced=1"); !strings.Contains(p.Text("#editor-notice"), "1 upcoming show now has a price") {
		t.Fatalf("notice = %q", p.Text("#editor-notice"))
	}
}
