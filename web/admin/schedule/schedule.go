// Package schedule serves the admin pages of what plays: the movie
// catalogue and its posters, a theatre's schedule with its forms for one
// show or a series and each show's prices, and a show's own page: its live
// occupancy, seat blocks, cancellation and waiting room.
package schedule

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	adminview "github.com/marquee-tickets/marquee/components/admin"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/adminpage"
	"github.com/marquee-tickets/marquee/web/problem"
)

// Handlers are the schedule pages' handlers, on the shared server.
type Handlers struct{ *web.Server }

// Scheduling and prices: each form calls the same use case as the JSON
// API, and comes back with what was typed and every mistake at its field.

// scheduleCtx is what the schedule page and its forms share.
type scheduleCtx struct {
	facts  admin.SchedulingFacts
	movies []catalog.Movie
}

func (h *Handlers) scheduling(c echo.Context) (scheduleCtx, error) {
	id, err := adminpage.PathID(c, "theatre_id")
	if err != nil {
		return scheduleCtx{}, problem.NotFound("theatre")
	}
	var s scheduleCtx
	ctx := c.Request().Context()
	if s.facts, err = h.Admin.Scheduling(ctx, web.Actor(c), id); err != nil {
		return s, problem.Lookup("theatre", err)
	}
	if s.movies, err = h.Admin.Movies(ctx, web.Actor(c)); err != nil {
		return s, err
	}
	return s, nil
}

// SchedulePage lists a theatre's shows, by default those that have not
// ended, or those of the days from..to.
func (h *Handlers) SchedulePage(c echo.Context) error {
	s, err := h.scheduling(c)
	if err != nil {
		return err
	}
	var notice string
	if n, err := strconv.Atoi(c.QueryParam("scheduled")); err == nil && n > 0 {
		notice = format.Plural(n, "show") + " scheduled."
	}
	if id, err := web.ParseID(c.QueryParam("priced")); err == nil {
		notice = fmt.Sprintf("Prices of show %d saved.", id)
	}
	return h.schedulePage(c, s, http.StatusOK, func(v *adminview.ScheduleView) { v.Notice = notice })
}

// schedulePage renders the schedule with status, after change has set the
// forms as sent.
func (h *Handlers) schedulePage(c echo.Context, s scheduleCtx, status int, change func(*adminview.ScheduleView)) error {
	t := s.facts.Theatre
	name, offset := time.Now().In(s.facts.Location).Zone()
	v := adminview.ScheduleView{
		TheatreID: t.ID, TheatreName: t.Name, TimeZone: t.TimeZone,
		ZoneNow: name + ", UTC" + offsetText(offset),
		From:    c.QueryParam("from"), To: c.QueryParam("to"),
	}
	if c.Request().Method == http.MethodPost {
		// A price form keeps the list's days in fields of its own.
		v.From, v.To = c.FormValue("list_from"), c.FormValue("list_to")
	}
	for _, sc := range s.facts.Screens {
		v.Screens = append(v.Screens, adminview.ScheduleScreen{ID: sc.ID, Name: sc.Name, Categories: sc.Categories})
	}
	for _, m := range s.movies {
		v.Movies = append(v.Movies, adminview.MovieOption{ID: m.ID, Title: m.Title})
	}
	from, to := h.filter(&v)
	var shows []catalog.TheatreShow
	if !v.FilterFaults.Any() {
		var err error
		shows, err = h.Admin.TheatreShows(c.Request().Context(), web.Actor(c), t.ID, from, to)
		var bad *catalog.FieldError
		if errors.As(err, &bad) {
			v.FilterFaults.Add(bad.Field, problem.Sentence(bad.Message))
			if status == http.StatusOK {
				status = http.StatusBadRequest
			}
		} else if err != nil {
			return problem.Lookup("theatre", err)
		}
	} else if status == http.StatusOK {
		status = http.StatusBadRequest
	}
	for _, sh := range shows {
		v.Rows = append(v.Rows, scheduleRow(sh, s.facts.Location))
	}
	// A new show is priced in the theatre's currency unless the admin
	// names another.
	v.One = adminview.ShowForm{Currency: t.Currency}
	v.Many = adminview.ShowForm{Bulk: true, Currency: t.Currency}
	if change != nil {
		change(&v)
	}
	return web.Render(c, status, adminview.SchedulePage(adminpage.Meta(h.Server, c, "Schedule · "+t.Name), adminpage.Nav(c, adminview.SectionTheatres), v))
}

// filter reads the list's days.
func (h *Handlers) filter(v *adminview.ScheduleView) (from, to time.Time) {
	var err error
	var bad *catalog.FieldError
	if v.From != "" {
		if from, err = admin.ParseDate("from", v.From); errors.As(err, &bad) {
			v.FilterFaults.Add("from", "Give the first day as a date, such as 2027-03-26.")
		}
	}
	if v.To != "" {
		if to, err = admin.ParseDate("to", v.To); errors.As(err, &bad) {
			v.FilterFaults.Add("to", "Give the last day as a date, such as 2027-03-31.")
		}
	}
	return from, to
}

func offsetText(seconds int) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "-", -seconds
	}
	return fmt.Sprintf("%s%02d:%02d", sign, seconds/3600, seconds%3600/60)
}

func scheduleRow(sh catalog.TheatreShow, loc *time.Location) adminview.ScheduleRow {
	at := sh.StartsAt.In(loc)
	r := adminview.ScheduleRow{
		ID: sh.ID, Date: format.Day(at), Time: at.Format("15:04 MST"), // format.Clock's style, with the zone
		Screen: sh.ScreenName, Movie: sh.MovieTitle, Cancelled: sh.Status == "CANCELLED",
		Sold: sh.Seats.Booked, Held: sh.Seats.Held, Blocked: sh.Seats.Blocked, Unsold: sh.Seats.Available,
		Currency: sh.Currency,
	}
	for _, cat := range slices.Sorted(maps.Keys(sh.Prices)) {
		r.Prices = append(r.Prices, adminview.PriceField{Category: cat,
			Value: money.Plain(sh.Prices[cat], sh.Currency), Shown: format.Money(sh.Prices[cat], sh.Currency)})
	}
	return r
}

// priceProblem is what a form says of a price money.ParsePrice refused.
func priceProblem(err error) string {
	var bad *money.PriceError
	if errors.As(err, &bad) {
		return bad.Message
	}
	return "give the price as a number, such as 250 or 250.50."
}

// showForm reads the fields both scheduling forms share, naming mistakes
// at their fields; the screen is one of the theatre's.
func showForm(c echo.Context, s scheduleCtx, bulk bool) (adminview.ShowForm, *admin.ScheduleScreen, map[string]int64) {
	f := adminview.ShowForm{
		Bulk: bulk, Currency: strings.ToUpper(strings.TrimSpace(c.FormValue("currency"))),
		Date: c.FormValue("date"), Time: c.FormValue("time"),
		From: c.FormValue("from"), To: c.FormValue("to"), Times: c.FormValue("times"),
		Prices: map[string]string{},
	}
	p := prefix(bulk)
	f.ScreenID, _ = strconv.ParseInt(c.FormValue("screen_id"), 10, 64)
	f.MovieID, _ = strconv.ParseInt(c.FormValue("movie_id"), 10, 64)
	var screen *admin.ScheduleScreen
	for i := range s.facts.Screens {
		if s.facts.Screens[i].ID == f.ScreenID {
			screen = &s.facts.Screens[i]
		}
	}
	if screen == nil {
		f.Add(p+"screen", "Pick one of this theatre’s screens.")
	}
	if f.MovieID <= 0 {
		f.Add(p+"movie", "Pick the movie to show.")
	}
	if screen == nil {
		return f, nil, nil
	}
	// Prices are read in the currency's decimals, so they wait for a
	// currency there is.
	currencyKnown := money.ValidCurrency(f.Currency)
	if !currencyKnown {
		f.Add(p+"currency", "Give a current ISO 4217 currency code, such as INR, EUR, USD or JPY.")
	}
	prices := map[string]int64{}
	for _, cat := range screen.Categories {
		name := adminview.PriceName(screen.ID, cat)
		typed := strings.TrimSpace(c.FormValue(name))
		f.Prices[name] = typed
		if typed == "" {
			f.Add(p+name, "Give a price for "+format.CategoryName(cat)+".")
			continue
		}
		if !currencyKnown {
			continue
		}
		minor, err := money.ParsePrice(typed, f.Currency)
		if err != nil {
			f.Add(p+name, format.CategoryName(cat)+": "+priceProblem(err))
			continue
		}
		prices[cat] = minor
	}
	if len(screen.Categories) == 0 {
		f.Add(p+"screen", "This screen has no seats yet: give it a layout first.")
	}
	return f, screen, prices
}

func prefix(bulk bool) string {
	if bulk {
		return "many-"
	}
	return "one-"
}

// CreateShowSubmit schedules one show at a date and time by the theatre's
// wall clock.
func (h *Handlers) CreateShowSubmit(c echo.Context) error {
	s, err := h.scheduling(c)
	if err != nil {
		return err
	}
	f, screen, prices := showForm(c, s, false)
	var startsAt time.Time
	day, dayErr := time.Parse(time.DateOnly, strings.TrimSpace(f.Date))
	if dayErr != nil {
		f.Add("one-date", "Give the date of the show, such as 2027-03-26.")
	}
	clock, clockErr := time.Parse("15:04", strings.TrimSpace(f.Time))
	if clockErr != nil {
		f.Add("one-time", "Give the start time as HH:MM, 24-hour, such as 18:30.")
	}
	if dayErr == nil && clockErr == nil {
		var ok bool
		startsAt, ok = admin.WallTime(day.Year(), day.Month(), day.Day(), clock.Hour(), clock.Minute(), s.facts.Location)
		if !ok {
			f.Add("one-time", fmt.Sprintf("%s does not exist on %s in %s: the clocks go forward then. Pick another time.",
				clock.Format("15:04"), day.Format(time.DateOnly), s.facts.Theatre.TimeZone))
		}
	}
	if f.Any() {
		return h.scheduleAgain(c, s, http.StatusUnprocessableEntity, f)
	}
	_, err = h.Admin.CreateShow(c.Request().Context(), web.Actor(c), admin.NewShow{
		ScreenID: screen.ID, MovieID: f.MovieID, StartsAt: startsAt,
		ShowTerms: admin.ShowTerms{Currency: f.Currency, Prices: prices},
	})
	if err != nil {
		return h.schedulingFailed(c, s, f, err)
	}
	return web.SeeOther(c, schedulePath(s.facts.Theatre.ID)+"?scheduled=1")
}

// BulkScheduleSubmit schedules every one of the times on every day from
// the first to the last, all or nothing.
func (h *Handlers) BulkScheduleSubmit(c echo.Context) error {
	s, err := h.scheduling(c)
	if err != nil {
		return err
	}
	f, screen, prices := showForm(c, s, true)
	var times []string
	for _, t := range strings.FieldsFunc(f.Times, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		if len(t) == 4 && t[1] == ':' {
			t = "0" + t // 9:30 is 09:30
		}
		times = append(times, t)
	}
	if f.From == "" {
		f.Add("many-from", "Give the first day, such as 2027-03-26.")
	}
	if f.To == "" {
		f.Add("many-to", "Give the last day, such as 2027-03-31.")
	}
	if len(times) == 0 {
		f.Add("many-times", "Give at least one time of day, such as 18:30.")
	}
	if f.Any() {
		return h.scheduleAgain(c, s, http.StatusUnprocessableEntity, f)
	}
	shows, err := h.Admin.ScheduleShows(c.Request().Context(), web.Actor(c), admin.ShowSeries{
		ScreenID: screen.ID, MovieID: f.MovieID, From: strings.TrimSpace(f.From), To: strings.TrimSpace(f.To),
		Times: times, ShowTerms: admin.ShowTerms{Currency: f.Currency, Prices: prices},
	})
	if err != nil {
		return h.schedulingFailed(c, s, f, err)
	}
	return web.SeeOther(c, fmt.Sprintf("%s?scheduled=%d", schedulePath(s.facts.Theatre.ID), len(shows)))
}

func schedulePath(theatreID int64) string {
	return fmt.Sprintf("/admin/theatres/%d/schedule", theatreID)
}

// scheduleAgain answers with the schedule and form f as sent.
func (h *Handlers) scheduleAgain(c echo.Context, s scheduleCtx, status int, f adminview.ShowForm) error {
	return h.schedulePage(c, s, status, func(v *adminview.ScheduleView) {
		if f.Bulk {
			v.Many = f
		} else {
			v.One = f
		}
	})
}

// schedulingFailed puts what the use case refused at its field; an error
// it does not know goes to the error page.
func (h *Handlers) schedulingFailed(c echo.Context, s scheduleCtx, f adminview.ShowForm, err error) error {
	p := prefix(f.Bulk)
	start := p + "date"
	when := p + "time"
	if f.Bulk {
		start, when = p+"from", p+"times"
	}
	var (
		bad     *catalog.FieldError
		missing *catalog.MissingPricesError
		overlap *catalog.ScheduleOverlapError
	)
	status := http.StatusUnprocessableEntity
	switch {
	case errors.As(err, &overlap):
		status = http.StatusConflict
		o, err := h.overlap(c, s, overlap)
		if err != nil {
			return err
		}
		f.Overlap = o
		if o.ShowID != 0 {
			f.Add(when, fmt.Sprintf("The screen is busy then: %s starts at %s.", o.Movie, o.When))
		} else {
			f.Add(when, fmt.Sprintf("Two of these shows overlap: the one at %s and the one at %s.", o.Asked, o.When))
		}
	case errors.Is(err, catalog.ErrShowInPast):
		f.Add(start, "A show cannot start in the past: pick a later date or time.")
	case errors.Is(err, catalog.ErrShowTooFarAhead):
		f.Add(start, fmt.Sprintf("A show can start at most %d days (two years) from now: pick an earlier date.",
			int(catalog.MaxScheduleAhead/(24*time.Hour))))
	case errors.As(err, &missing):
		f.Add(p+"prices", "Every seat category of the screen needs a price: "+strings.Join(missing.Categories, ", ")+".")
	case errors.As(err, &bad):
		field := map[string]string{"movie_id": "movie", "screen_id": "screen"}[bad.Field]
		if field == "" {
			field = bad.Field
		}
		if !slices.Contains([]string{"screen", "movie", "date", "time", "from", "to", "times", "currency", "prices"}, field) {
			f.Error = problem.Sentence(bad.Message)
		} else {
			f.Add(p+field, problem.Sentence(bad.Message))
		}
	case errors.Is(err, booking.ErrNotFound):
		f.Add(p+"screen", "Pick one of this theatre’s screens.")
	case errors.Is(err, catalog.ErrScreenRetired):
		status = http.StatusConflict
		f.Add(p+"screen", "This screen was retired meanwhile: it takes no new shows. Pick another screen.")
	case errors.Is(err, catalog.ErrMovieChanged):
		status = http.StatusConflict
		f.Error = "The movie’s running time changed while the show was being scheduled: nothing was scheduled. Send the form again."
	default:
		return err
	}
	return h.scheduleAgain(c, s, status, f)
}

// overlap describes the show a new one collides with.
func (h *Handlers) overlap(c echo.Context, s scheduleCtx, e *catalog.ScheduleOverlapError) (*adminview.Overlap, error) {
	wall := func(t time.Time) string { return format.When(t, s.facts.Theatre.TimeZone) }
	o := &adminview.Overlap{ShowID: e.ConflictingShowID, When: wall(e.ConflictingStartsAt), Asked: wall(e.StartsAt)}
	if o.ShowID == 0 {
		return o, nil
	}
	other, err := h.Store.Show(c.Request().Context(), o.ShowID)
	if err != nil {
		return nil, fmt.Errorf("the show in the way: %w", err)
	}
	o.Movie = other.MovieTitle
	return o, nil
}

// PricesSubmit replaces a show's prices, from its row of the schedule.
func (h *Handlers) PricesSubmit(c echo.Context) error {
	showID, err := adminpage.PathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	ctx := c.Request().Context()
	// Reading the show to parse its prices tells nothing: SetPrices, or
	// Scheduling for a form with mistakes, refuses another theatre's show
	// as not found, as a show that does not exist is.
	show, err := h.Store.Show(ctx, showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	categories, _, err := h.Store.ShowCategories(ctx, showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	var faults adminview.Faults
	typed := map[string]string{}
	prices := map[string]int64{}
	for _, cat := range categories {
		v := strings.TrimSpace(c.FormValue(adminview.RowPriceName(cat)))
		typed[cat] = v
		minor, err := money.ParsePrice(v, show.Currency)
		if err != nil {
			faults.Add(adminview.RowPriceID(showID, cat), format.CategoryName(cat)+": "+priceProblem(err))
			continue
		}
		prices[cat] = minor
	}
	status := http.StatusUnprocessableEntity
	if !faults.Any() {
		_, err = h.Admin.SetPrices(ctx, web.Actor(c), showID, prices)
		var bad *catalog.FieldError
		var missing *catalog.MissingPricesError
		switch {
		case err == nil:
			q := url.Values{"priced": {strconv.FormatInt(showID, 10)}}
			if from := c.FormValue("list_from"); from != "" {
				q.Set("from", from)
			}
			if to := c.FormValue("list_to"); to != "" {
				q.Set("to", to)
			}
			return web.SeeOther(c, fmt.Sprintf("%s?%s#show-%d", schedulePath(show.TheatreID), q.Encode(), showID))
		case errors.Is(err, catalog.ErrShowHasSales):
			status = http.StatusConflict
			faults.Error = "Prices cannot change once seats are sold or held: this show has seats sold or held."
		case errors.Is(err, catalog.ErrShowCancelled):
			status = http.StatusConflict
			faults.Error = "This show was cancelled: its prices cannot change."
		case errors.As(err, &missing):
			faults.Error = "Every seat category needs a price: " + strings.Join(missing.Categories, ", ") + "."
		case errors.As(err, &bad):
			faults.Error = problem.Sentence(bad.Message)
		default:
			return problem.Lookup("show", err)
		}
	}
	if faults.Error == "" {
		faults.Error = "Please fix the prices to continue."
	}
	s := scheduleCtx{}
	if s.facts, err = h.Admin.Scheduling(ctx, web.Actor(c), show.TheatreID); err != nil {
		return problem.Lookup("theatre", err)
	}
	if s.movies, err = h.Admin.Movies(ctx, web.Actor(c)); err != nil {
		return err
	}
	return h.schedulePage(c, s, status, func(v *adminview.ScheduleView) {
		found := false
		for i := range v.Rows {
			r := &v.Rows[i]
			if r.ID != showID {
				continue
			}
			found = true
			r.PricesOpen, r.Faults = true, faults
			for j := range r.Prices {
				r.Prices[j].Value = typed[r.Prices[j].Category]
			}
		}
		if !found {
			// The show is not in the list's days: say it above the list.
			v.Notice = ""
			v.Problem = fmt.Sprintf("Show %d: %s", showID, faults.Error)
		}
	})
}
