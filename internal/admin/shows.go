package admin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
)

// MaxShowsPerRequest bounds how many shows one ScheduleShows may create.
const MaxShowsPerRequest = 200

// maxTheatreShows bounds the theatre's show list.
const maxTheatreShows = 1000

// ShowTerms are what a show is sold on: its currency, a price per seat
// category of its screen, and optionally its format and dubbed language.
type ShowTerms struct {
	Currency string
	Prices   map[string]int64 // minor units per seat category
	Format   string           // one of catalog.Formats; "" is catalog.DefaultFormat
	Language string           // "": the movie's own
}

// NewShow is one show to schedule.
type NewShow struct {
	ScreenID int64
	MovieID  int64
	StartsAt time.Time
	ShowTerms
}

// ShowSeries is a run of shows on one screen: every one of Times on every
// day from From to To, inclusive, by the theatre's wall clock.
type ShowSeries struct {
	ScreenID int64
	MovieID  int64
	From, To string   // YYYY-MM-DD
	Times    []string // HH:MM, 24-hour
	ShowTerms
}

// ScheduledShow is a show just scheduled.
type ScheduledShow struct {
	ID       int64
	StartsAt time.Time
	EndsAt   time.Time // its start + the movie's runtime + the theatre's cleaning buffer
}

// CreateShow schedules one show, its seats on sale at once.
func (s *Service) CreateShow(ctx context.Context, a Actor, n NewShow) (ScheduledShow, error) {
	p, err := s.planShows(ctx, a, n.ScreenID, n.MovieID, n.ShowTerms)
	if err != nil {
		return ScheduledShow{}, err
	}
	shows, err := s.schedule(ctx, a, p, []time.Time{n.StartsAt}, func(ids []int64) (string, string) {
		return "show.create", fmt.Sprintf("show %d", ids[0])
	})
	if err != nil {
		return ScheduledShow{}, err
	}
	return shows[0], nil
}

// ScheduleShows schedules a series of shows, all or none: any overlap, with
// a scheduled show or within the series, or a start in the past refuses
// them all. A wall-clock time that a day skips (the clocks go forward) is
// refused; one a day has twice (the clocks go back) is the first.
func (s *Service) ScheduleShows(ctx context.Context, a Actor, series ShowSeries) ([]ScheduledShow, error) {
	p, err := s.planShows(ctx, a, series.ScreenID, series.MovieID, series.ShowTerms)
	if err != nil {
		return nil, err
	}
	starts, err := seriesStarts(series.From, series.To, series.Times, p.loc)
	if err != nil {
		return nil, err
	}
	return s.schedule(ctx, a, p, starts, func([]int64) (string, string) {
		return "show.schedule", fmt.Sprintf("screen %d", series.ScreenID)
	})
}

// showPlan is what every show of one request shares.
type showPlan struct {
	screen  catalog.ScreenFacts
	loc     *time.Location
	movieID int64
	runtime time.Duration
	terms   ShowTerms
}

// planShows checks that a may schedule on the screen, and the movie and
// terms of the shows.
func (s *Service) planShows(ctx context.Context, a Actor, screenID, movieID int64, terms ShowTerms) (showPlan, error) {
	if _, err := s.requireScreen(ctx, a, screenID); err != nil {
		return showPlan{}, err
	}
	if err := checkTerms(terms); err != nil {
		return showPlan{}, err
	}
	facts, err := s.Store.ScreenFacts(ctx, screenID)
	if err != nil {
		return showPlan{}, err
	}
	if facts.Retired {
		return showPlan{}, catalog.ErrScreenRetired
	}
	loc, err := time.LoadLocation(facts.TimeZone)
	if err != nil {
		return showPlan{}, fmt.Errorf("theatre %d: time zone %q: %w", facts.TheatreID, facts.TimeZone, err)
	}
	movie, err := s.Store.Movie(ctx, movieID)
	if errors.Is(err, booking.ErrNotFound) {
		return showPlan{}, &catalog.FieldError{Field: "movie_id", Message: fmt.Sprintf("there is no movie %d", movieID)}
	}
	if err != nil {
		return showPlan{}, err
	}
	if err := checkPrices(terms.Prices, facts.Categories, terms.Currency); err != nil {
		return showPlan{}, err
	}
	return showPlan{
		screen: facts, loc: loc, movieID: movieID, terms: terms,
		runtime: time.Duration(movie.DurationMinutes) * time.Minute,
	}, nil
}

// schedule makes a show of p at each of starts, with one audit entry whose
// action and object name says.
func (s *Service) schedule(ctx context.Context, a Actor, p showPlan, starts []time.Time, names func(ids []int64) (action, object string)) ([]ScheduledShow, error) {
	shows := make([]catalog.Show, len(starts))
	for i, at := range starts {
		shows[i] = catalog.Show{
			MovieID: p.movieID, ScreenID: p.screen.ScreenID, StartsAt: at.UTC(),
			EndsAt:   at.UTC().Add(p.runtime + p.screen.CleaningBuffer),
			Currency: p.terms.Currency, Prices: p.terms.Prices, Format: p.terms.Format, Language: p.terms.Language,
		}
	}
	ids, err := s.Store.ScheduleShows(ctx, shows, func(ids []int64) audit.Entry {
		action, object := names(ids)
		return auditEntry(a, p.screen.TheatreID, action, object, nil, auditShows(ids, shows))
	})
	if err != nil {
		return nil, err
	}
	out := make([]ScheduledShow, len(shows))
	for i, sh := range shows {
		out[i] = ScheduledShow{ID: ids[i], StartsAt: sh.StartsAt, EndsAt: sh.EndsAt}
	}
	return out, nil
}

// auditedShow is a scheduled show as the audit log records it.
type auditedShow struct {
	ID       int64            `json:"id"`
	ScreenID int64            `json:"screen_id"`
	MovieID  int64            `json:"movie_id"`
	StartsAt time.Time        `json:"starts_at"`
	EndsAt   time.Time        `json:"ends_at"`
	Currency string           `json:"currency"`
	Prices   map[string]int64 `json:"prices"`
	Format   string           `json:"format,omitempty"`
	Language string           `json:"language,omitempty"`
}

func auditShows(ids []int64, shows []catalog.Show) any {
	out := make([]auditedShow, len(shows))
	for i, sh := range shows {
		out[i] = auditedShow{ID: ids[i], ScreenID: sh.ScreenID, MovieID: sh.MovieID, StartsAt: sh.StartsAt,
			EndsAt: sh.EndsAt, Currency: sh.Currency, Prices: sh.Prices, Format: sh.Format, Language: sh.Language}
	}
	if len(out) == 1 {
		return out[0]
	}
	return map[string]any{"shows": out}
}

// checkTerms checks what a show's terms say on their own; checkPrices
// checks the prices against the screen.
func checkTerms(t ShowTerms) error {
	if !money.ValidCurrency(t.Currency) {
		return &catalog.FieldError{Field: "currency", Message: invalidCurrency(t.Currency)}
	}
	if t.Format != "" && !slices.Contains(catalog.Formats, t.Format) {
		return &catalog.FieldError{Field: "format", Message: fmt.Sprintf("the format is one of %v", catalog.Formats)}
	}
	if n := len([]rune(t.Language)); n > 40 {
		return &catalog.FieldError{Field: "language", Message: "the language is at most 40 characters"}
	}
	return nil
}

// invalidCurrency says why code is not a currency a show or theatre may use.
func invalidCurrency(code string) string {
	return fmt.Sprintf("%q is not a current ISO 4217 currency code: give one in capitals, such as INR, EUR, USD or JPY", code)
}

// checkPrices refuses a negative price, one above money.MaxPriceMinor, a
// price for a category no seat of the screen is in, and names every
// category of the screen without one. With the bound, a hold's total (a
// price times at most a thousand seats) stays far inside int64.
func checkPrices(prices map[string]int64, categories []string, currency string) error {
	for _, category := range slices.Sorted(maps.Keys(prices)) {
		if !slices.Contains(categories, category) {
			return &catalog.FieldError{Field: "prices",
				Message: fmt.Sprintf("no seat of this screen is in category %q (it has %v)", category, categories)}
		}
		if prices[category] < 0 {
			return &catalog.FieldError{Field: "prices", Message: fmt.Sprintf("the price of %s is negative", category)}
		}
		if !money.ValidPrice(prices[category]) {
			return &catalog.FieldError{Field: "prices",
				Message: fmt.Sprintf("the price of %s is more than a seat may cost: %s", category, money.PriceTooHigh(currency))}
		}
	}
	var missing []string
	for _, category := range categories {
		if _, ok := prices[category]; !ok {
			missing = append(missing, category)
		}
	}
	if len(missing) > 0 {
		return &catalog.MissingPricesError{Categories: missing}
	}
	return nil
}

var wallClockPattern = regexp.MustCompile(`^([01][0-9]|2[0-3]):([0-5][0-9])$`)

// seriesStarts is every one of times on every day from..to, inclusive, by
// loc's wall clock.
func seriesStarts(from, to string, times []string, loc *time.Location) ([]time.Time, error) {
	first, err := ParseDate("from", from)
	if err != nil {
		return nil, err
	}
	last, err := ParseDate("to", to)
	if err != nil {
		return nil, err
	}
	if last.Before(first) {
		return nil, &catalog.FieldError{Field: "to", Message: "the last day comes before the first"}
	}
	if len(times) == 0 {
		return nil, &catalog.FieldError{Field: "times", Message: "give at least one time of day, such as 18:30"}
	}
	days := int(last.Sub(first)/(24*time.Hour)) + 1
	if n := days * len(times); n > MaxShowsPerRequest || n <= 0 {
		return nil, &catalog.FieldError{Field: "times",
			Message: fmt.Sprintf("one request schedules at most %d shows; this one asks for %d days of %d", MaxShowsPerRequest, days, len(times))}
	}
	type hm struct{ h, m int }
	var clock []hm
	for _, t := range times {
		m := wallClockPattern.FindStringSubmatch(t)
		if m == nil {
			return nil, &catalog.FieldError{Field: "times", Message: fmt.Sprintf("%q is not a time of day as HH:MM, such as 18:30", t)}
		}
		c := hm{atoi2(m[1]), atoi2(m[2])}
		if slices.Contains(clock, c) {
			return nil, &catalog.FieldError{Field: "times", Message: fmt.Sprintf("%s is given twice", t)}
		}
		clock = append(clock, c)
	}
	starts := make([]time.Time, 0, days*len(clock))
	for day := first; !day.After(last); day = day.AddDate(0, 0, 1) {
		for i, c := range clock {
			at, ok := WallTime(day.Year(), day.Month(), day.Day(), c.h, c.m, loc)
			if !ok {
				return nil, &catalog.FieldError{Field: "times",
					Message: fmt.Sprintf("%s does not exist on %s in %s: the clocks go forward then", times[i], day.Format(time.DateOnly), loc)}
			}
			starts = append(starts, at)
		}
	}
	return starts, nil
}

// atoi2 is the value of two decimal digits.
func atoi2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// WallTime is the first instant at which loc's clocks read hour:minute on
// the given day, and false when they never do (the hour the clocks skip
// going forward). time.Date alone leaves both cases unspecified.
func WallTime(year int, month time.Month, day, hour, minute int, loc *time.Location) (time.Time, bool) {
	naive := time.Date(year, month, day, hour, minute, 0, 0, time.UTC)
	var first time.Time
	found := false
	// The instant is naive minus the zone's offset then; the offsets in
	// force within a day of it are all it can be.
	for probe := -24 * time.Hour; probe <= 24*time.Hour; probe += 3 * time.Hour {
		_, offset := naive.Add(probe).In(loc).Zone()
		at := naive.Add(-time.Duration(offset) * time.Second)
		y, mo, d := at.In(loc).Date()
		h, mi, _ := at.In(loc).Clock()
		if y == year && mo == month && d == day && h == hour && mi == minute && (!found || at.Before(first)) {
			first, found = at, true
		}
	}
	return first, found
}

// ParseDate reads a YYYY-MM-DD date of field, as midnight UTC of that day
// (a calendar day, in no zone yet).
func ParseDate(field, value string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, value)
	if err != nil {
		return time.Time{}, &catalog.FieldError{Field: field, Message: fmt.Sprintf("%q is not a date as YYYY-MM-DD", value)}
	}
	return d, nil
}

// dayStart is the first instant of calendar day d (from ParseDate) in loc.
func dayStart(d time.Time, loc *time.Location) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
}

// TheatreShows lists theatreID's shows, scheduled and cancelled, with their
// prices and seat counts: those starting from day from through day to (in
// the theatre's zone; a zero from is those that have not ended, a zero to
// no end).
func (s *Service) TheatreShows(ctx context.Context, a Actor, theatreID int64, from, to time.Time) ([]catalog.TheatreShow, error) {
	if err := s.require(ctx, a, theatreID, SeeShows); err != nil {
		return nil, err
	}
	t, err := s.Store.Theatre(ctx, theatreID)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(t.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("theatre %d: time zone %q: %w", theatreID, t.TimeZone, err)
	}
	var start, end *time.Time
	if !from.IsZero() {
		at := dayStart(from, loc)
		start = &at
	}
	if !to.IsZero() {
		if !from.IsZero() && to.Before(from) {
			return nil, &catalog.FieldError{Field: "to", Message: "the last day comes before the first"}
		}
		at := dayStart(to.AddDate(0, 0, 1), loc)
		end = &at
	}
	return s.Store.TheatreShows(ctx, theatreID, start, end, maxTheatreShows)
}

// SetPrices replaces a show's prices, under the same rules as scheduling
// it, and returns them. A show with seats sold or held by a live hold
// keeps its prices (catalog.ErrShowHasSales); so does a cancelled one.
func (s *Service) SetPrices(ctx context.Context, a Actor, showID int64, prices map[string]int64) (map[string]int64, error) {
	theatreID, err := s.requireShow(ctx, a, showID)
	if err != nil {
		return nil, err
	}
	categories, currency, err := s.Store.ShowCategories(ctx, showID)
	if err != nil {
		return nil, err
	}
	if err := checkPrices(prices, categories, currency); err != nil {
		return nil, err
	}
	err = s.Store.SetShowPrices(ctx, showID, prices, func(before map[string]int64) audit.Entry {
		return auditEntry(a, theatreID, "show.set_prices", fmt.Sprintf("show %d", showID),
			map[string]any{"prices": before}, map[string]any{"prices": prices})
	})
	if err != nil {
		return nil, err
	}
	return prices, nil
}
