package admin_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// signedIn is a page browser signed in as a new account of role, granted
// the theatres.
func signedIn(t *testing.T, e *webtest.Env, role auth.Role, theatres ...int64) *webtest.Browser {
	t.Helper()
	_, u := e.Account(t, role, theatres...)
	b := e.Browser()
	p := b.Submit(t, "/login", url.Values{"email": {u.Email}, "password": {pgtest.FixturePassword}, "next": {"/admin"}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("log in: %s", p)
	}
	return b
}

// londonTheatre is a theatre in Europe/London with one 3x4 screen
// (STANDARD and PREMIUM seats).
func londonTheatre(t *testing.T, e *webtest.Env) (theatreID, screenID int64) {
	t.Helper()
	ctx := context.Background()
	theatreID, err := e.Store.CreateTheatre(ctx, catalog.Theatre{CityID: e.Venue.CityID, Name: "Thames Picture House", TimeZone: "Europe/London"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if screenID, err = e.Store.CreateScreen(ctx, theatreID, "Screen 1", pgtest.Grid(3, 4)); err != nil {
		t.Fatal(err)
	}
	return theatreID, screenID
}

func theatreShows(t *testing.T, e *webtest.Env, theatreID int64) []catalog.TheatreShow {
	t.Helper()
	shows, err := e.Store.TheatreShows(context.Background(), theatreID, nil, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return shows
}

// lastSundayOfMarch is the day the clocks go forward in London, in a year
// to come.
func lastSundayOfMarch(year int) time.Time {
	d := time.Date(year, time.March, 31, 0, 0, 0, 0, time.UTC)
	for d.Weekday() != time.Sunday {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

func wantField(t *testing.T, p *webtest.HTMLDoc, id, contains string) {
	t.Helper()
	msg := p.Text("#" + id + "-error")
	if msg == "" || !strings.Contains(msg, contains) {
		t.Fatalf("#%s-error = %q, want %q; page: %s", id, msg, contains, p)
	}
	if got := p.Attr("#"+id, "aria-describedby"); !strings.Contains(got, id+"-error") {
		t.Fatalf("#%s aria-describedby = %q, want its error", id, got)
	}
}

func oneShow(screenID, movieID int64, date, at string) url.Values {
	return url.Values{
		"screen_id": {fmt.Sprint(screenID)}, "movie_id": {fmt.Sprint(movieID)},
		"date": {date}, "time": {at}, "currency": {"GBP"},
		fmt.Sprintf("price-%d-STANDARD", screenID): {"12"},
		fmt.Sprintf("price-%d-PREMIUM", screenID):  {"18.50"},
	}
}

func TestSchedulePage(t *testing.T) {
	e := webtest.NewEnv(t)
	london, _ := londonTheatre(t, e)
	path := fmt.Sprintf("/admin/theatres/%d/schedule", e.Venue.TheatreID)

	for name, b := range map[string]*webtest.Browser{
		"platform admin": signedIn(t, e, auth.RolePlatformAdmin),
		"theatre admin":  signedIn(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID),
	} {
		t.Run(name, func(t *testing.T) {
			p := b.Get(t, path)
			webtest.Want200(t, p)
			row := fmt.Sprintf("[data-show=%q]", fmt.Sprint(e.Show))
			if !p.Has(row) {
				t.Fatalf("no row of show %d: %s", e.Show, p)
			}
			if got := p.Text(row + " [data-counts]"); !strings.Contains(got, "0 sold, 0 held, 0 blocked, 100 available") {
				t.Fatalf("counts = %q", got)
			}
			if got := p.Attr(row+" a", "href"); got != fmt.Sprintf("/admin/shows/%d", e.Show) {
				t.Fatalf("show link = %q", got)
			}
			if got := p.Text("#zone-note"); !strings.Contains(got, "Asia/Kolkata") {
				t.Fatalf("zone note = %q", got)
			}
			if !strings.Contains(p.Text(row), "Prices can change only while no seat is sold or held") {
				t.Fatalf("no price note in the row: %s", p.Text(row))
			}
			if !p.Has("#one-screen") || !p.Has("#many-times") || !p.Has("label[for=one-date]") {
				t.Fatal("the scheduling forms are missing")
			}
			// The days filter: a day with no show lists none; a bad day is said.
			far := time.Now().AddDate(3, 0, 0).Format(time.DateOnly)
			p = b.Get(t, path+"?from="+far+"&to="+far)
			webtest.Want200(t, p)
			if p.Has(row) {
				t.Fatal("the filter kept a show of another day")
			}
			p = b.Get(t, path+"?from=yesterday")
			webtest.WantStatus(t, p, http.StatusBadRequest)
			wantField(t, p, "from", "first day")
		})
	}

	t.Run("another theatre's schedule is not found", func(t *testing.T) {
		b := signedIn(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
		webtest.WantFriendly(t, b.Get(t, fmt.Sprintf("/admin/theatres/%d/schedule", london)), http.StatusNotFound)
		webtest.WantFriendly(t, b.Get(t, "/admin/theatres/987654/schedule"), http.StatusNotFound)
		p := b.Submit(t, fmt.Sprintf("/admin/theatres/%d/schedule", london), oneShow(1, e.Venue.MovieID, "2030-01-01", "10:00"))
		webtest.WantFriendly(t, p, http.StatusNotFound)
	})
	t.Run("a moviegoer gets 403", func(t *testing.T) {
		webtest.WantFriendly(t, e.PageUser(t).Get(t, path), http.StatusForbidden)
	})
	t.Run("a guest is sent to log in", func(t *testing.T) {
		p := e.Browser().Get(t, path)
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Header.Get("Location"), "/login") {
			t.Fatalf("guest: %d to %q", p.Status, p.Header.Get("Location"))
		}
	})
}

func TestScheduleAShow(t *testing.T) {
	e := webtest.NewEnv(t)
	london, screen := londonTheatre(t, e)
	b := signedIn(t, e, auth.RolePlatformAdmin)
	path := fmt.Sprintf("/admin/theatres/%d/schedule", london)
	movie := e.Venue.MovieID

	p := b.Get(t, path)
	webtest.Want200(t, p)
	if got := p.Text("#zone-note"); !strings.Contains(got, "Europe/London") {
		t.Fatalf("zone note = %q", got)
	}
	for _, cat := range []string{"STANDARD", "PREMIUM"} {
		if !p.Has(fmt.Sprintf("label[for=one-price-%d-%s]", screen, cat)) {
			t.Fatalf("no labelled %s price field", cat)
		}
	}

	// 10:00 on either side of the clocks going forward: GMT, then BST.
	sunday := lastSundayOfMarch(time.Now().Year() + 1)
	saturday := sunday.AddDate(0, 0, -1)
	for _, day := range []time.Time{saturday, sunday} {
		p = b.Submit(t, path, oneShow(screen, movie, day.Format(time.DateOnly), "10:00"))
		webtest.WantSeeOther(t, p, path+"?scheduled=1")
	}
	shows := theatreShows(t, e, london)
	if len(shows) != 2 {
		t.Fatalf("%d shows, want 2", len(shows))
	}
	if got, want := shows[0].StartsAt.UTC(), saturday.Add(10*time.Hour); !got.Equal(want) {
		t.Fatalf("Saturday's 10:00 = %s, want %s (GMT)", got, want)
	}
	if got, want := shows[1].StartsAt.UTC(), sunday.Add(9*time.Hour); !got.Equal(want) {
		t.Fatalf("Sunday's 10:00 = %s, want %s (BST)", got, want)
	}
	if shows[0].Prices["PREMIUM"] != 1850 || shows[0].Prices["STANDARD"] != 1200 || shows[0].Currency != "GBP" {
		t.Fatalf("terms = %s %v", shows[0].Currency, shows[0].Prices)
	}
	p = b.Get(t, path+"?scheduled=1")
	if got := p.Text("[data-notice]"); got != "1 show scheduled." {
		t.Fatalf("notice = %q", got)
	}
	if got := p.Text(fmt.Sprintf("[data-show=%q]", fmt.Sprint(shows[1].ID))); !strings.Contains(got, "10:00 BST") {
		t.Fatalf("Sunday's row = %q, want 10:00 BST", got)
	}

	// Mistakes come back at their fields, and nothing is scheduled.
	next := time.Now().AddDate(0, 1, 0).Format(time.DateOnly)
	cases := []struct {
		name   string
		change func(url.Values)
		status int
		field  string
		says   string
	}{
		{"a time the clocks skip", func(f url.Values) { f.Set("date", sunday.Format(time.DateOnly)); f.Set("time", "01:30") }, 422, "one-time", "does not exist"},
		{"in the past", func(f url.Values) { f.Set("date", time.Now().AddDate(0, 0, -2).Format(time.DateOnly)) }, 422, "one-date", "past"},
		{"a missing price", func(f url.Values) { f.Del(fmt.Sprintf("price-%d-PREMIUM", screen)) }, 422, fmt.Sprintf("one-price-%d-PREMIUM", screen), "Premium"},
		{"a bad price", func(f url.Values) { f.Set(fmt.Sprintf("price-%d-STANDARD", screen), "ten") }, 422, fmt.Sprintf("one-price-%d-STANDARD", screen), "number"},
		{"a bad currency", func(f url.Values) { f.Set("currency", "pounds") }, 422, "one-currency", "ISO 4217"},
		{"no movie", func(f url.Values) { f.Set("movie_id", "") }, 422, "one-movie", "movie"},
		{"an unknown movie", func(f url.Values) { f.Set("movie_id", "987654") }, 422, "one-movie", "no movie"},
		{"another theatre's screen", func(f url.Values) { f.Set("screen_id", fmt.Sprint(e.Show)) }, 422, "one-screen", "screens"},
		{"no time", func(f url.Values) { f.Set("time", "") }, 422, "one-time", "HH:MM"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := oneShow(screen, movie, next, "18:00")
			tc.change(f)
			p := b.Submit(t, path, f)
			webtest.WantStatus(t, p, tc.status)
			wantField(t, p, tc.field, tc.says)
			if !p.Has("#one-form-error") {
				t.Fatal("no summary of the mistakes")
			}
			if got := p.Attr("#one-currency", "value"); tc.name != "a bad currency" && got != "GBP" {
				t.Fatalf("the form lost what was typed: currency %q", got)
			}
			if n := len(theatreShows(t, e, london)); n != 2 {
				t.Fatalf("%d shows after a refused form, want 2", n)
			}
		})
	}

	t.Run("an overlap names the show in the way", func(t *testing.T) {
		p := b.Submit(t, path, oneShow(screen, movie, saturday.Format(time.DateOnly), "11:00"))
		webtest.WantStatus(t, p, http.StatusConflict)
		wantField(t, p, "one-time", "The Last Algorithm")
		note := p.Text("[data-overlap]")
		if !strings.Contains(note, "The Last Algorithm") || !strings.Contains(note, "10:00 GMT") {
			t.Fatalf("overlap note = %q", note)
		}
		if got := p.Attr("[data-overlap] a", "href"); got != fmt.Sprintf("/admin/shows/%d", shows[0].ID) {
			t.Fatalf("overlap link = %q", got)
		}
		if n := len(theatreShows(t, e, london)); n != 2 {
			t.Fatalf("%d shows after an overlap, want 2", n)
		}
	})
}

func TestScheduleMany(t *testing.T) {
	e := webtest.NewEnv(t)
	london, screen := londonTheatre(t, e)
	b := signedIn(t, e, auth.RoleTheatreAdmin, london)
	path := fmt.Sprintf("/admin/theatres/%d/schedule", london)
	from := time.Now().AddDate(0, 2, 0)
	form := func(times string) url.Values {
		f := oneShow(screen, e.Venue.MovieID, "", "")
		f.Del("date")
		f.Del("time")
		f.Set("from", from.Format(time.DateOnly))
		f.Set("to", from.AddDate(0, 0, 3).Format(time.DateOnly))
		f.Set("times", times)
		return f
	}

	for _, tc := range []struct {
		name, times, field, says string
		change                   func(url.Values)
	}{
		{"a bad time", "10:00, 25:00", "many-times", "25:00", nil},
		{"no time", "", "many-times", "at least one", nil},
		{"the last day first", "10:00", "many-to", "before", func(f url.Values) { f.Set("to", from.AddDate(0, 0, -1).Format(time.DateOnly)) }},
		{"in the past", "10:00", "many-from", "past", func(f url.Values) { f.Set("from", time.Now().AddDate(0, 0, -3).Format(time.DateOnly)) }},
		{"a missing price", "10:00", fmt.Sprintf("many-price-%d-STANDARD", screen), "Standard", func(f url.Values) { f.Set(fmt.Sprintf("price-%d-STANDARD", screen), "") }},
		{"overlapping each other", "10:00, 11:00", "many-times", "overlap", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := form(tc.times)
			if tc.change != nil {
				tc.change(f)
			}
			p := b.Submit(t, path+"/bulk", f)
			if p.Status != http.StatusUnprocessableEntity && p.Status != http.StatusConflict {
				t.Fatalf("status = %s", p)
			}
			wantField(t, p, tc.field, tc.says)
			if n := len(theatreShows(t, e, london)); n != 0 {
				t.Fatalf("%d shows after a refused form, want 0", n)
			}
		})
	}

	p := b.Submit(t, path+"/bulk", form("10:00, 13:30, 21:15"))
	webtest.WantSeeOther(t, p, path+"?scheduled=12")
	if n := len(theatreShows(t, e, london)); n != 12 {
		t.Fatalf("%d shows, want 12", n)
	}
	p = b.Get(t, path+"?scheduled=12")
	if got := p.Text("[data-notice]"); got != "12 shows scheduled." {
		t.Fatalf("notice = %q", got)
	}

	// All or nothing: one of the series in the way of a scheduled show.
	f := form("9:00, 16:00")
	f.Set("from", from.AddDate(0, 0, 3).Format(time.DateOnly))
	f.Set("to", from.AddDate(0, 0, 5).Format(time.DateOnly))
	p = b.Submit(t, path+"/bulk", f)
	webtest.WantStatus(t, p, http.StatusConflict)
	wantField(t, p, "many-times", "The Last Algorithm")
	if !p.Has("[data-overlap] a[href^='/admin/shows/']") {
		t.Fatal("no link to the show in the way")
	}
	if n := len(theatreShows(t, e, london)); n != 12 {
		t.Fatalf("%d shows after a refused series, want 12", n)
	}
}

func TestShowPrices(t *testing.T) {
	e := webtest.NewEnv(t)
	_, screen := londonTheatre(t, e)
	b := signedIn(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	prices := func(id int64) map[string]int64 {
		sh, err := e.Store.Show(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return sh.Prices
	}
	path := fmt.Sprintf("/admin/shows/%d/prices", e.Show)
	schedule := fmt.Sprintf("/admin/theatres/%d/schedule", e.Venue.TheatreID)

	p := b.Submit(t, path, url.Values{"price-STANDARD": {"300"}, "price-PREMIUM": {"abc"}})
	webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
	wantField(t, p, fmt.Sprintf("price-%d-PREMIUM", e.Show), "number")
	if got := prices(e.Show); got["STANDARD"] != 25000 {
		t.Fatalf("prices changed by a refused form: %v", got)
	}

	p = b.Submit(t, path, url.Values{"price-STANDARD": {"300"}, "price-PREMIUM": {"500.50"}})
	webtest.WantSeeOther(t, p, fmt.Sprintf("%s?priced=%d#show-%d", schedule, e.Show, e.Show))
	if got := prices(e.Show); got["STANDARD"] != 30000 || got["PREMIUM"] != 50050 {
		t.Fatalf("prices = %v", got)
	}
	p = b.Get(t, fmt.Sprintf("%s?priced=%d", schedule, e.Show))
	if got := p.Text(fmt.Sprintf("[data-show=%q] [data-prices]", fmt.Sprint(e.Show))); !strings.Contains(got, "Premium ₹500.50") {
		t.Fatalf("row prices = %q", got)
	}

	// A held seat fixes the prices.
	e.User(t).MustHold(t, "A1")
	p = b.Submit(t, path, url.Values{"price-STANDARD": {"1"}, "price-PREMIUM": {"2"}})
	webtest.WantStatus(t, p, http.StatusConflict)
	row := fmt.Sprintf("[data-show=%q]", fmt.Sprint(e.Show))
	if got := p.Text(row + " [data-price-error]"); !strings.Contains(got, "Prices cannot change once seats are sold or held") {
		t.Fatalf("price error = %q; %s", got, p)
	}
	if !p.Has(row + " details[open]") {
		t.Fatal("the refused price form is closed")
	}
	if got := prices(e.Show); got["STANDARD"] != 30000 {
		t.Fatalf("prices changed with a seat held: %v", got)
	}

	// Another theatre's show is not found.
	ctx := context.Background()
	other, err := e.Store.CreateShow(ctx, catalog.Show{MovieID: e.Venue.MovieID, ScreenID: screen,
		StartsAt: time.Now().Add(48 * time.Hour), EndsAt: time.Now().Add(50 * time.Hour), Currency: "GBP", Prices: pgtest.Prices})
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []url.Values{{"price-STANDARD": {"1"}, "price-PREMIUM": {"2"}}, {"price-STANDARD": {"x"}}} {
		webtest.WantFriendly(t, b.Submit(t, fmt.Sprintf("/admin/shows/%d/prices", other), form), http.StatusNotFound)
	}
	if got := prices(other); got["STANDARD"] != 25000 {
		t.Fatalf("another theatre's prices changed: %v", got)
	}
	webtest.WantFriendly(t, b.Submit(t, "/admin/shows/987654/prices", url.Values{"price-STANDARD": {"1"}}), http.StatusNotFound)
}

func TestMoviesPages(t *testing.T) {
	e := webtest.NewEnv(t)
	b := signedIn(t, e, auth.RolePlatformAdmin)

	p := b.Get(t, "/admin/movies")
	webtest.Want200(t, p)
	if !strings.Contains(p.Text("[data-catalogue]"), "The Last Algorithm") {
		t.Fatalf("catalogue = %q", p.Text("[data-catalogue]"))
	}
	for _, id := range []string{"title", "duration_minutes", "rating", "language", "genres", "synopsis"} {
		if !p.Has("label[for=" + id + "]") {
			t.Fatalf("no label for %s", id)
		}
	}
	count := func() int64 { return e.Count(t, `SELECT count(*) FROM movies`) }
	before := count()

	for _, tc := range []struct {
		name, field, says string
		form              url.Values
	}{
		{"no title", "title", "title", url.Values{"title": {" "}, "duration_minutes": {"120"}}},
		{"runtime not a number", "duration_minutes", "whole number", url.Values{"title": {"X"}, "duration_minutes": {"two hours"}}},
		{"runtime too long", "duration_minutes", "600", url.Values{"title": {"X"}, "duration_minutes": {"900"}}},
		{"too many genres", "genres", "6", url.Values{"title": {"X"}, "duration_minutes": {"90"}, "genres": {"a,b,c,d,e,f,g"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := b.Submit(t, "/admin/movies", tc.form)
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			wantField(t, p, tc.field, tc.says)
			if got := p.Attr("#title", "value"); got != tc.form.Get("title") {
				t.Fatalf("title kept as %q", got)
			}
			if count() != before {
				t.Fatal("a refused form added a movie")
			}
		})
	}

	p = b.Submit(t, "/admin/movies", url.Values{"title": {"Monsoon Letters"}, "duration_minutes": {"142"},
		"rating": {"UA"}, "language": {"Hindi"}, "genres": {"Drama, Romance"}, "synopsis": {"Rain."}})
	if p.Status != http.StatusSeeOther {
		t.Fatalf("create: %s", p)
	}
	var id int64
	if _, err := fmt.Sscanf(p.Header.Get("Location"), "/admin/movies/%d?added=1", &id); err != nil {
		t.Fatalf("Location = %q", p.Header.Get("Location"))
	}
	m, err := e.Store.Movie(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Title != "Monsoon Letters" || m.DurationMinutes != 142 || strings.Join(m.Genres, "|") != "Drama|Romance" || m.Rating != "UA" {
		t.Fatalf("movie = %+v", m)
	}
	p = b.Get(t, p.Header.Get("Location"))
	webtest.Want200(t, p)
	if p.Text("h1") != "Monsoon Letters" || p.Text("[data-notice]") == "" {
		t.Fatalf("movie page: %s", p)
	}
	if p.Attr("form[enctype]", "enctype") != "multipart/form-data" || p.Attr("#poster", "accept") != "image/png,image/jpeg,image/webp" {
		t.Fatal("the poster form is not a file upload")
	}

	t.Run("a theatre admin gets 403", func(t *testing.T) {
		ta := signedIn(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
		webtest.WantFriendly(t, ta.Get(t, "/admin/movies"), http.StatusForbidden)
		webtest.WantFriendly(t, ta.Get(t, fmt.Sprintf("/admin/movies/%d", id)), http.StatusForbidden)
		webtest.WantFriendly(t, ta.Submit(t, "/admin/movies", url.Values{"title": {"Y"}, "duration_minutes": {"90"}}), http.StatusForbidden)
		if count() != before+1 {
			t.Fatal("a theatre admin added a movie")
		}
	})
	t.Run("a moviegoer gets 403, a guest logs in", func(t *testing.T) {
		webtest.WantFriendly(t, e.PageUser(t).Get(t, "/admin/movies"), http.StatusForbidden)
		if p := e.Browser().Get(t, "/admin/movies"); p.Status != http.StatusSeeOther {
			t.Fatalf("guest: %s", p)
		}
	})
	t.Run("an unknown movie is not found", func(t *testing.T) {
		webtest.WantFriendly(t, b.Get(t, "/admin/movies/987654"), http.StatusNotFound)
	})
}

// upload posts the poster form with a file part.
func upload(t *testing.T, b *webtest.Browser, path, filename string, data []byte, alt string) *webtest.HTMLDoc {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("_csrf", b.Token(t))
	_ = w.WriteField("alt", alt)
	part, err := w.CreateFormFile("poster", filename)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(data)
	_ = w.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, b.E.Srv.URL+path, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Accept", "text/html")
	resp, err := b.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	p := &webtest.HTMLDoc{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
	if p.Doc, err = goquery.NewDocumentFromReader(bytes.NewReader(raw)); err != nil {
		t.Fatal(err)
	}
	return p
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPosterUpload(t *testing.T) {
	e := webtest.NewEnv(t)
	b := signedIn(t, e, auth.RolePlatformAdmin)
	movie := e.Venue.MovieID
	path := fmt.Sprintf("/admin/movies/%d/poster", movie)
	poster := func() *catalog.PosterInfo {
		m, err := e.Store.Movie(context.Background(), movie)
		if err != nil {
			t.Fatal(err)
		}
		return m.Poster
	}

	p := upload(t, b, path, "notes.txt", []byte("not an image at all, just words"), "")
	webtest.WantStatus(t, p, http.StatusUnsupportedMediaType)
	wantField(t, p, "poster", "not a PNG, JPEG or WebP")
	p = upload(t, b, path, "broken.png", pngOf(t, 20, 30)[:60], "")
	webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
	wantField(t, p, "poster", "damaged")
	big := append(pngOf(t, 4, 4), bytes.Repeat([]byte{0}, 2<<20)...)
	p = upload(t, b, path, "big.png", big, "")
	webtest.WantStatus(t, p, http.StatusRequestEntityTooLarge)
	wantField(t, p, "poster", "at most 2 MiB")
	p = upload(t, b, path, "", nil, "")
	webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
	wantField(t, p, "poster", "Choose an image")
	if poster() != nil {
		t.Fatal("a refused upload set a poster")
	}
	// A photo straight off a phone, 5 MiB: told at its field too, with the
	// limit, and what was typed kept.
	p = upload(t, b, path, "huge.png", bytes.Repeat([]byte{1}, 5<<20), "A robot under a red sky")
	webtest.WantStatus(t, p, http.StatusRequestEntityTooLarge)
	wantField(t, p, "poster", "This image is 5.0 MiB: a poster is at most 2 MiB")
	if got := p.Attr("#alt", "value"); got != "A robot under a red sky" {
		t.Fatalf("the form forgot the text alternative typed: %q", got)
	}
	if !strings.Contains(p.Text("#poster-hint"), "At most 2 MiB") || !strings.Contains(p.Attr("#poster", "aria-describedby"), "poster-hint") {
		t.Fatalf("the file field does not say the limit: %q", p.Text("#poster-hint"))
	}

	p = upload(t, b, path, "poster.png", pngOf(t, 700, 1050), "A robot under a red sky")
	webtest.WantSeeOther(t, p, fmt.Sprintf("/admin/movies/%d?poster=1", movie))
	info := poster()
	if info == nil || info.Width != 640 || info.Height != 960 || info.Alt != "A robot under a red sky" {
		t.Fatalf("poster = %+v", info)
	}
	p = b.Get(t, fmt.Sprintf("/admin/movies/%d?poster=1", movie))
	webtest.Want200(t, p)
	if got := p.Text("[data-notice]"); !strings.Contains(got, "640 × 960") {
		t.Fatalf("notice = %q", got)
	}
	if got := p.Attr("img[src^='/movies/']", "alt"); got != "A robot under a red sky" {
		t.Fatalf("poster alt = %q", got)
	}
	// The catalogue shows the thumbnail.
	if got := b.Get(t, "/admin/movies").Attr(fmt.Sprintf("[data-movie=%q] img", fmt.Sprint(movie)), "src"); !strings.HasPrefix(got, fmt.Sprintf("/movies/%d/poster?v=", movie)) {
		t.Fatalf("thumbnail src = %q", got)
	}

	ta := signedIn(t, e, auth.RoleTheatreAdmin, e.Venue.TheatreID)
	webtest.WantFriendly(t, upload(t, ta, path, "poster.png", pngOf(t, 10, 10), ""), http.StatusForbidden)
}
