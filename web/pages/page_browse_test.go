package pages_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/web/webtest"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestBrowsePages(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	slug := e.CitySlug(t)
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	// A small show tomorrow, sold out; and one that started an hour ago.
	soldOut := pgtest.NewShow(t, e.Store, e.Venue, 1, 2, time.Now().Add(26*time.Hour))
	u := e.User(t)
	webtest.Want(t, u.HoldOn(soldOut, "sold-out", "A1", "A2"), http.StatusCreated)
	started := pgtest.NewShow(t, e.Store, e.Venue, 1, 1, time.Now().Add(-time.Hour))
	showDay := time.Now().Add(72 * time.Hour).In(kolkata).Format(time.DateOnly)
	soldDay := time.Now().Add(26 * time.Hour).In(kolkata).Format(time.DateOnly)

	t.Run("the city page lists movies of the week with a date strip", func(t *testing.T) {
		b := e.Browser()
		p := b.Get(t, "/cities/"+slug)
		webtest.Want200(t, p)
		if !strings.Contains(p.Text("h1"), "Testville") || !strings.Contains(p.Text("main"), "The Last Algorithm") {
			t.Fatalf("city page: %s", p.Text("main"))
		}
		if n := p.Doc.Find(`nav[aria-label="Choose a day"] li`).Length(); n != 7 {
			t.Fatalf("date strip has %d days", n)
		}
		if p.Attr(`nav[aria-label="Choose a day"] a[href$="date=`+showDay+`"]`, "href") == "" {
			t.Error("the show's day is not a link in the strip")
		}
		remembered := false
		for _, ck := range p.Header.Values("Set-Cookie") {
			remembered = remembered || strings.HasPrefix(ck, "marquee_city="+slug)
		}
		if !remembered {
			t.Error("the city is not remembered")
		}
		if p.Attr(`a[href^="/movies/`+fmt.Sprint(e.Venue.MovieID)+`?city=`+slug+`"]`, "href") == "" {
			t.Error("no link to the movie page")
		}
		webtest.WantFriendly(t, b.Get(t, "/cities/atlantis"), http.StatusNotFound)
	})

	t.Run("the movie page lists theatres and showtimes; sold out says so", func(t *testing.T) {
		b := e.Browser()
		p := b.Get(t, fmt.Sprintf("/movies/%d?city=%s&date=%s", e.Venue.MovieID, slug, showDay))
		webtest.Want200(t, p)
		if p.Attr(fmt.Sprintf(`a[href="/shows/%d"]`, e.Show), "href") == "" || !strings.Contains(p.Text("main"), "Test Cinema") {
			t.Fatalf("movie page: %s", p.Text("main"))
		}
		p = b.Get(t, fmt.Sprintf("/movies/%d?city=%s&date=%s", e.Venue.MovieID, slug, soldDay))
		webtest.Want200(t, p)
		if p.Has(fmt.Sprintf(`a[href="/shows/%d"]`, soldOut)) || !strings.Contains(p.Text("main"), "Sold out") {
			t.Fatalf("a sold-out show is offered: %s", p.Text("main"))
		}
		if strings.Contains(p.Body, fmt.Sprintf("/shows/%d", started)) {
			t.Fatal("a started show is offered")
		}
		webtest.WantFriendly(t, b.Get(t, "/movies/987654?city="+slug), http.StatusNotFound)
		webtest.WantSeeOther(t, e.Browser().Get(t, fmt.Sprintf("/movies/%d", e.Venue.MovieID)), "/?choose=1")
	})

	t.Run("the theatre page lists its shows in its time zone", func(t *testing.T) {
		show, err := e.Store.Show(context.Background(), e.Show)
		if err != nil {
			t.Fatal(err)
		}
		p := e.Browser().Get(t, fmt.Sprintf("/theatres/%d?date=%s", e.Venue.TheatreID, showDay))
		webtest.Want200(t, p)
		wantTime := show.StartsAt.In(kolkata).Format("15:04")
		if !strings.Contains(p.Text(fmt.Sprintf(`a[href="/shows/%d"]`, e.Show)), wantTime) || !strings.Contains(p.Text("main"), "IST") {
			t.Fatalf("theatre page (want %s): %s", wantTime, p.Text("main"))
		}
		webtest.WantFriendly(t, e.Browser().Get(t, "/theatres/987654"), http.StatusNotFound)
	})
}

// TestBrowseFilters narrows the movie and city pages by language, format
// and time of day, through the URL a filter form sends.
func TestBrowseFilters(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	ctx := context.Background()
	slug := e.CitySlug(t)
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	// Four days ahead: after the env's own show, a day of its own.
	d := time.Now().In(kolkata).AddDate(0, 0, 4)
	day := d.Format(time.DateOnly)
	at := func(hour int) time.Time { return time.Date(d.Year(), d.Month(), d.Day(), hour, 0, 0, 0, kolkata) }
	movie, err := e.Store.CreateMovie(ctx, catalog.Movie{Title: "Monsoon Nights", DurationMinutes: 100, Language: "Hindi", Rating: "UA"})
	if err != nil {
		t.Fatal(err)
	}
	show := func(hour int, format, language string) int64 {
		t.Helper()
		screen, err := e.Store.CreateScreen(ctx, e.Venue.TheatreID, fmt.Sprintf("Screen %d", hour), pgtest.Grid(2, 5))
		if err != nil {
			t.Fatal(err)
		}
		id, err := e.Store.CreateShow(ctx, catalog.Show{MovieID: movie, ScreenID: screen, StartsAt: at(hour), EndsAt: at(hour).Add(2 * time.Hour),
			Currency: "INR", Prices: pgtest.Prices, Format: format, Language: language})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	morning := show(10, "", "")
	afternoon := show(13, "IMAX 2D", "Tamil")
	night := show(20, "3D", "")
	moviePage := fmt.Sprintf("/movies/%d?city=%s&date=%s", movie, slug, day)
	// offered is the shows a page links, in order.
	offered := func(p *webtest.HTMLDoc) []string {
		var hrefs []string
		p.Doc.Find(`section[aria-labelledby="showtimes-title"] a.chip`).Each(func(_ int, s *goquery.Selection) {
			hrefs = append(hrefs, s.AttrOr("href", ""))
		})
		return hrefs
	}
	paths := func(ids ...int64) []string {
		var out []string
		for _, id := range ids {
			out = append(out, fmt.Sprintf("/shows/%d", id))
		}
		return out
	}

	t.Run("the movie page offers every show of the day and the filters on offer", func(t *testing.T) {
		p := e.Browser().Get(t, moviePage)
		webtest.Want200(t, p)
		if got := offered(p); !slices.Equal(got, paths(morning, afternoon, night)) {
			t.Fatalf("offered %v", got)
		}
		for _, sel := range []string{
			`input[type=checkbox][name=language][value=Hindi]`, `input[type=checkbox][name=language][value=Tamil]`,
			`input[type=checkbox][name=format][value="IMAX 2D"]`, `input[type=checkbox][name=format][value="3D"]`,
			`input[type=checkbox][name=time][value=morning]`, `input[type=checkbox][name=time][value=night]`,
			`form[hx-get][hx-push-url=true][hx-target="#listing"] input[type=hidden][name=city][value="` + slug + `"]`,
			`#listing`, `#listing-status[aria-live=polite]`,
		} {
			if !p.Has(sel) {
				t.Errorf("no %s", sel)
			}
		}
		if p.Has(`input[name=format][value="4DX"]`) {
			t.Error("a format no show has is offered")
		}
		if p.Has(`input:checked`) || strings.Contains(p.Text("main"), "Clear filters") {
			t.Error("a filter is on without being asked for")
		}
		wantLabelledAndUnique(t, p)
	})

	t.Run("filters narrow the showtimes", func(t *testing.T) {
		for _, c := range []struct {
			query string
			want  []int64
		}{
			{"&format=IMAX+2D", []int64{afternoon}},
			{"&format=3D&format=IMAX+2D", []int64{afternoon, night}},
			{"&language=Tamil", []int64{afternoon}},
			{"&language=Hindi", []int64{morning, night}},
			{"&time=morning&time=night", []int64{morning, night}},
			{"&time=afternoon&language=Tamil&format=IMAX+2D", []int64{afternoon}},
		} {
			p := e.Browser().Get(t, moviePage+c.query)
			webtest.Want200(t, p)
			if got := offered(p); !slices.Equal(got, paths(c.want...)) {
				t.Errorf("%s: offered %v, want %v", c.query, got, paths(c.want...))
			}
			if clear := p.Attr(`a:contains("Clear filters")`, "href"); clear != fmt.Sprintf("/movies/%d?city=%s&date=%s", movie, slug, day) {
				t.Errorf("%s: clear filters goes to %q", c.query, clear)
			}
		}
		p := e.Browser().Get(t, moviePage+"&format=IMAX+2D&time=afternoon")
		if !p.Has(`input[name=format][value="IMAX 2D"]:checked`) || !p.Has(`input[name=time][value=afternoon]:checked`) || p.Has(`input[name=format][value="3D"]:checked`) {
			t.Error("the form does not show what is chosen")
		}
		// The day strip keeps the filters.
		if href := p.Attr(`nav[aria-label="Choose a day"] a[aria-current="date"]`, "href"); !strings.Contains(href, "format=IMAX+2D") || !strings.Contains(href, "time=afternoon") {
			t.Errorf("the day's link drops the filters: %q", href)
		}
		tags := p.Text(fmt.Sprintf(`a[href="/shows/%d"]`, afternoon))
		if !strings.Contains(tags, "IMAX 2D") || !strings.Contains(tags, "Tamil") {
			t.Errorf("the dubbed IMAX show reads %q", tags)
		}
	})

	t.Run("no match says so and offers to clear the filters", func(t *testing.T) {
		p := e.Browser().Get(t, moviePage+"&language=Tamil&time=night")
		webtest.Want200(t, p)
		if len(offered(p)) != 0 || !strings.Contains(p.Text("main"), "No showtimes match these filters.") {
			t.Fatalf("page: %s", p.Text("main"))
		}
		if clear := p.Attr(`section[aria-labelledby="showtimes-title"] a:contains("Clear filters")`, "href"); clear != fmt.Sprintf("/movies/%d?city=%s&date=%s", movie, slug, day) {
			t.Errorf("clearing the filters beside the empty list goes to %q", clear)
		}
		// A chosen language nobody shows stays on offer, ticked, to untick.
		p = e.Browser().Get(t, moviePage+"&language=Klingon")
		if len(offered(p)) != 0 || !p.Has(`input[name=language][value=Klingon]:checked`) {
			t.Fatalf("an unknown language: %s", p.Text("main"))
		}
	})

	t.Run("the city page lists only the movies with matching shows", func(t *testing.T) {
		cards := func(p *webtest.HTMLDoc) []string {
			var titles []string
			p.Doc.Find(`section[aria-labelledby="movies-title"] h3`).Each(func(_ int, s *goquery.Selection) {
				titles = append(titles, strings.TrimSpace(s.Text()))
			})
			return titles
		}
		p := e.Browser().Get(t, "/cities/"+slug)
		if got := cards(p); !slices.Equal(got, []string{"The Last Algorithm", "Monsoon Nights"}) {
			t.Fatalf("unfiltered: %v", got)
		}
		p = e.Browser().Get(t, "/cities/"+slug+"?format=3D")
		webtest.Want200(t, p)
		if got := cards(p); !slices.Equal(got, []string{"Monsoon Nights"}) {
			t.Fatalf("3D: %v", got)
		}
		// The movie's link opens its page as filtered.
		if href := p.Attr(`section[aria-labelledby="movies-title"] a.btn-primary`, "href"); !strings.Contains(href, "format=3D") {
			t.Errorf("movie link %q drops the filter", href)
		}
		if !strings.Contains(p.Text("main"), "Hindi") || !strings.Contains(p.Text("main"), "3D") {
			t.Errorf("the card does not name the language and format: %s", p.Text("main"))
		}
		wantLabelledAndUnique(t, p)
		p = e.Browser().Get(t, "/cities/"+slug+"?language=Marathi")
		if len(cards(p)) != 0 || !strings.Contains(p.Text("main"), "No movies match these filters.") ||
			p.Attr(`section[aria-labelledby="movies-title"] a:contains("Clear filters")`, "href") != "/cities/"+slug {
			t.Fatalf("no match: %s", p.Text("main"))
		}
	})

	t.Run("a filter the app does not know is a clear 400", func(t *testing.T) {
		for _, q := range []string{"&time=brunch", "&format=8K", "&language=" + strings.Repeat("x", 41), "&language=%00",
			strings.Repeat("&format=3D", 11)} {
			p := e.Browser().Get(t, moviePage+q)
			webtest.WantFriendly(t, p, http.StatusBadRequest)
		}
		webtest.WantFriendly(t, e.Browser().Get(t, "/cities/"+slug+"?time=teatime"), http.StatusBadRequest)
	})
}

// TestShowtimeButtons: a showtime button names the lowest price of a seat
// left, says when the show is filling fast, and a sold-out show is no link.
func TestShowtimeButtons(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	slug := e.CitySlug(t)
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	starts := time.Now().Add(24 * time.Hour)
	day := starts.In(kolkata).Format(time.DateOnly)
	small := pgtest.NewShow(t, e.Store, e.Venue, 2, 5, starts) // A STANDARD, B PREMIUM
	page := fmt.Sprintf("/movies/%d?city=%s&date=%s", e.Venue.MovieID, slug, day)
	button := func() *webtest.HTMLDoc {
		p := e.Browser().Get(t, page)
		webtest.Want200(t, p)
		return p
	}
	sel := fmt.Sprintf(`a[href="/shows/%d"]`, small)

	if txt := button().Text(sel); !strings.Contains(txt, "from ₹250") || strings.Contains(txt, "Filling fast") {
		t.Fatalf("an empty show: %q", txt)
	}
	webtest.Want(t, e.User(t).HoldOn(small, "cheap", "A1", "A2", "A3", "A4", "A5"), http.StatusCreated)
	if txt := button().Text(sel); !strings.Contains(txt, "from ₹450") || strings.Contains(txt, "Filling fast") {
		t.Fatalf("with the cheap seats held: %q", txt)
	}
	webtest.Want(t, e.User(t).HoldOn(small, "most", "B1", "B2", "B3", "B4"), http.StatusCreated)
	p := button()
	if txt := p.Text(sel); !strings.Contains(txt, "from ₹450") || !strings.Contains(txt, "Filling fast") {
		t.Fatalf("one seat of ten left: %q", txt)
	}
	webtest.Want(t, e.User(t).HoldOn(small, "last", "B5"), http.StatusCreated)
	p = button()
	if p.Has(sel) || !strings.Contains(p.Text(`section[aria-labelledby="showtimes-title"]`), "Sold out") {
		t.Fatalf("a sold-out show: %s", p.Text("main"))
	}
}

// TestPosters: the demo's posters are on the pages with their size and a
// text alternative, and served as the images they say they are, cached
// for good under their versioned URL.
func TestPosters(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t, webtest.WithStore(demoStore(t)))
	p := e.Browser().Get(t, "/cities/bengaluru")
	webtest.Want200(t, p)
	imgs := p.Doc.Find(`section[aria-labelledby="movies-title"] li img`)
	if n := p.Doc.Find(`section[aria-labelledby="movies-title"] li`).Length(); n == 0 || imgs.Length() != n {
		t.Fatalf("%d posters for %d movies", imgs.Length(), n)
	}
	// fetch answers GET path with its body read.
	fetch := func(t *testing.T, path string, header map[string]string) *webtest.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, e.Srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := e.HTTPClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return &webtest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	}
	imgs.Each(func(i int, img *goquery.Selection) {
		src, alt := img.AttrOr("src", ""), img.AttrOr("alt", "")
		if !strings.HasPrefix(alt, "Poster of ") {
			t.Errorf("poster %s: alt %q", src, alt)
		}
		// The first row is on screen at once; the rest wait to be scrolled to.
		if lazy := img.AttrOr("loading", "") == "lazy"; lazy != (i >= 2) {
			t.Errorf("poster %d lazy = %v", i, lazy)
		}
		resp := fetch(t, src, nil)
		body := resp.Body
		if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" ||
			resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("ETag") == "" {
			t.Fatalf("GET %s: %d %v", src, resp.Status, resp.Header)
		}
		cfg, format, err := image.DecodeConfig(bytes.NewReader(body))
		if err != nil || format != "png" || fmt.Sprint(cfg.Width) != img.AttrOr("width", "") || fmt.Sprint(cfg.Height) != img.AttrOr("height", "") {
			t.Fatalf("poster %s is %s %dx%d (%v), the page says %sx%s", src, format, cfg.Width, cfg.Height, err,
				img.AttrOr("width", ""), img.AttrOr("height", ""))
		}
		if resp := fetch(t, src, map[string]string{"If-None-Match": resp.Header.Get("ETag")}); resp.Status != http.StatusNotModified {
			t.Errorf("revalidating %s: %d, want 304", src, resp.Status)
		}
		// Without its version, the same image, revalidated each time.
		unversioned := src[:strings.Index(src, "?")]
		if resp := fetch(t, unversioned, nil); resp.Status != http.StatusOK || !bytes.Equal(resp.Body, body) ||
			resp.Header.Get("Cache-Control") != "public, no-cache" {
			t.Errorf("GET %s: %d %v", unversioned, resp.Status, resp.Header)
		}
	})

	t.Run("the movie page shows its poster first, not lazily", func(t *testing.T) {
		href := p.Attr(`section[aria-labelledby="movies-title"] a.btn-primary`, "href")
		mp := e.Browser().Get(t, href)
		webtest.Want200(t, mp)
		img := mp.Doc.Find("main img").First()
		if img.AttrOr("src", "") == "" || img.AttrOr("width", "") == "" || img.AttrOr("height", "") == "" ||
			img.AttrOr("loading", "") == "lazy" || !strings.HasPrefix(img.AttrOr("alt", ""), "Poster of ") {
			t.Fatalf("movie page poster: %v", img.Nodes)
		}
	})

	t.Run("a movie without a poster has none, and its poster URL is a 404", func(t *testing.T) {
		mp := e.Browser().Get(t, fmt.Sprintf("/movies/%d?city=%s", e.Venue.MovieID, e.CitySlug(t)))
		webtest.Want200(t, mp)
		if mp.Has("main img") {
			t.Error("an image for a movie without a poster")
		}
		for _, path := range []string{fmt.Sprintf("/movies/%d/poster", e.Venue.MovieID), "/movies/987654/poster", "/movies/x/poster"} {
			if resp := fetch(t, path, nil); resp.Status != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", path, resp.Status)
			}
		}
	})
}

// wantLabelledAndUnique checks the page's ids are unique and every form
// control has a label.
func wantLabelledAndUnique(t *testing.T, p *webtest.HTMLDoc) {
	t.Helper()
	seen := map[string]bool{}
	p.Doc.Find("[id]").Each(func(_ int, s *goquery.Selection) {
		id := s.AttrOr("id", "")
		if seen[id] {
			t.Errorf("id %q is used twice", id)
		}
		seen[id] = true
	})
	p.Doc.Find(`input:not([type=hidden])`).Each(func(_ int, s *goquery.Selection) {
		id := s.AttrOr("id", "")
		if id == "" || p.Doc.Find(`label[for="`+id+`"]`).Length() != 1 {
			t.Errorf("input %s %q has no label", s.AttrOr("name", ""), id)
		}
	})
}

// TestBrowseFiltersInBrowser ticks a filter in Chromium, on the demo
// catalogue: the showtimes change in place, the URL follows, the ticked box
// keeps the focus, Back brings the list back, and the posters show.
func TestBrowseFiltersInBrowser(t *testing.T) {
	t.Parallel()
	browser := startChromium(t)
	s := newSite(t, siteConfig{demo: true})
	logScreenshots(t)
	// A movie with IMAX and other shows in Bengaluru three days ahead.
	day := time.Now().In(zoneOf(t, "Asia/Kolkata")).AddDate(0, 0, 3).Format(time.DateOnly)
	movie := scalar[int64](s, `
		SELECT sh.movie_id FROM shows sh
		  JOIN screens sc ON sc.id = sh.screen_id JOIN theatres t ON t.id = sc.theatre_id JOIN cities c ON c.id = t.city_id
		 WHERE c.slug = 'bengaluru' AND (sh.starts_at AT TIME ZONE t.timezone)::date = $1::date
		 GROUP BY sh.movie_id
		HAVING count(*) FILTER (WHERE sh.format = 'IMAX 2D') > 0 AND count(*) FILTER (WHERE sh.format <> 'IMAX 2D') > 0
		 ORDER BY sh.movie_id LIMIT 1`, day)
	count := func(where string) int {
		return scalar[int](s, `
			SELECT count(*) FROM shows sh
			  JOIN screens sc ON sc.id = sh.screen_id JOIN theatres t ON t.id = sc.theatre_id JOIN cities c ON c.id = t.city_id
			 WHERE c.slug = 'bengaluru' AND sh.movie_id = $1 AND (sh.starts_at AT TIME ZONE t.timezone)::date = $2::date AND `+where,
			movie, day)
	}
	all, imax := count("true"), count("sh.format = 'IMAX 2D'")
	imaxEvening := count(`sh.format = 'IMAX 2D' AND extract(hour FROM sh.starts_at AT TIME ZONE t.timezone) BETWEEN 16 AND 18`)
	const chips = `document.querySelectorAll('section[aria-labelledby="showtimes-title"] a.chip, section[aria-labelledby="showtimes-title"] span.chip')`
	posterShown := `(() => { const i = document.querySelector('main img'); return !!i && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().height > 100; })()`

	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			tb := s.openTab(t, browser, "filters-"+vp.name, vp)
			tb.open(fmt.Sprintf("/movies/%d?city=bengaluru&date=%s", movie, day))
			tb.waitFor("the showtimes", fmt.Sprintf(`%s.length === %d`, chips, all))
			tb.waitFor("the poster", posterShown)
			tb.noSidewaysScroll("the movie page")
			tb.shot("movie")

			tb.click(`label[for="filter-format-imax-2d"]`)
			tb.waitFor("only IMAX showtimes", fmt.Sprintf(`%s.length === %d && [...%s].every(c => c.textContent.includes("IMAX 2D"))
				&& new URLSearchParams(location.search).getAll("format").join() === "IMAX 2D"`, chips, imax, chips))
			if got := eval[bool](tb, `document.getElementById("filter-format-imax-2d").checked`); !got {
				t.Fatal("the IMAX box is not ticked after the swap")
			}
			tb.waitFor("the poster after the swap", posterShown)
			tb.shot("imax")

			// By keyboard: the box keeps the focus as the list is replaced.
			tb.do("focus the evening box", chromedp.Focus(chromedp.ID("filter-time-evening")))
			tb.press(" ")
			tb.waitFor("IMAX evening showtimes", fmt.Sprintf(`new URLSearchParams(location.search).getAll("time").join() === "evening" && %s.length === %d`, chips, imaxEvening))
			if imaxEvening == 0 {
				tb.waitFor("the empty result", `document.querySelector("main").textContent.includes("No showtimes match these filters.")`)
			}
			if id := tb.focused(); id != "filter-time-evening" {
				t.Errorf("focus is on %q after the swap, want the evening box", id)
			}
			if status := tb.Text("#listing-status"); !strings.Contains(status, "showtime") {
				t.Errorf("screen readers are told %q", status)
			}

			tb.do("go back", chromedp.NavigateBack())
			tb.waitFor("the IMAX list again", fmt.Sprintf(`new URLSearchParams(location.search).getAll("time").length === 0 && %s.length === %d`, chips, imax))
			tb.click(`a[href="/movies/` + fmt.Sprint(movie) + `?city=bengaluru&date=` + day + `"]`) // Clear filters
			tb.waitFor("every showtime again", fmt.Sprintf(`%s.length === %d && !location.search.includes("format")`, chips, all))

			tb.open("/cities/bengaluru")
			tb.waitFor("the city's posters", `(() => { const i = document.querySelector('section[aria-labelledby="movies-title"] img'); return !!i && i.complete && i.naturalWidth > 0; })()`)
			tb.noSidewaysScroll("the city page")
			tb.shot("city")
		})
	}
}

func zoneOf(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
