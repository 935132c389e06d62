package pages

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// browseDays is how many days, from today, the browse pages offer.
const browseDays = 7

// week is the stretch of days a browse page offers, in one time zone.
type week struct {
	tz     string
	today  time.Time // midnight, in tz
	within time.Duration
}

// weekFrom is the browseDays days starting today in tz, and how long from
// now until they end.
func weekFrom(now time.Time, tz string) week {
	l := now.In(format.Zone(tz))
	today := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, l.Location())
	end := today.AddDate(0, 0, browseDays)
	return week{tz: tz, today: today, within: end.Sub(now)}
}

// contains reports whether the day d (YYYY-MM-DD) is one of the week's.
func (w week) contains(d string) bool {
	for i := range browseDays {
		if w.today.AddDate(0, 0, i).Format(time.DateOnly) == d {
			return true
		}
	}
	return false
}

// strip is the week's date strip: current is the chosen day, hasShows the
// days with shows, href the link of a day.
func (w week) strip(current string, hasShows []string, href func(day string) string) []components.Day {
	shows := map[string]bool{}
	for _, d := range hasShows {
		shows[d] = true
	}
	days := make([]components.Day, browseDays)
	for i := range days {
		t := w.today.AddDate(0, 0, i)
		d := t.Format(time.DateOnly)
		name := t.Format("Mon")
		switch i {
		case 0:
			name = "Today"
		case 1:
			name = "Tomorrow"
		}
		days[i] = components.Day{
			Weekday: name, Date: t.Format("2 Jan"), Href: href(d),
			Current: d == current, HasShows: shows[d],
		}
	}
	return days
}

// dayLabel names a chosen day in a heading: "today", "on Wed, 3 Dec".
func (w week) dayLabel(day string) string {
	switch day {
	case "":
		return "this week"
	case w.today.Format(time.DateOnly):
		return "today"
	case w.today.AddDate(0, 0, 1).Format(time.DateOnly):
		return "tomorrow"
	}
	t, err := time.ParseInLocation(time.DateOnly, day, format.Zone(w.tz))
	if err != nil {
		return "on " + day
	}
	return "on " + format.Day(t)
}

// chooseDay is the day a page shows: the one asked for when it is in the
// week, else the first day with shows, else today.
func (w week) chooseDay(asked string, withShows []string) string {
	if asked != "" && format.ValidDate(asked) && w.contains(asked) {
		return asked
	}
	if len(withShows) > 0 {
		return withShows[0]
	}
	return w.today.Format(time.DateOnly)
}

// showtimeView is one show as a listing links it: its time, its format
// and dub when they are not the plain 2D original, the lowest price of a
// seat left, and whether it is filling fast or sold out.
func showtimeView(st catalog.Showtime) components.Showtime {
	v := components.Showtime{
		Href:   "/shows/" + strconv.FormatInt(st.ID, 10),
		Time:   format.Clock(st.StartsAt, st.TimeZone),
		Screen: st.ScreenName,
		From:   "from " + format.Money(st.FromMinor, st.Currency),
	}
	if st.Format != catalog.DefaultFormat {
		v.Format = st.Format
	}
	if st.Dubbed {
		v.Language = st.Language
	}
	switch st.Availability() {
	case catalog.SoldOut:
		v.SoldOut = true
	case catalog.FillingFast:
		v.FillingFast = true
	}
	return v
}

func moviePath(movieID int64, citySlug, day string) string {
	return filteredMoviePath(movieID, citySlug, day, listingFilter{})
}

// filteredMoviePath is a movie's page in a city on a day, narrowed by lf.
func filteredMoviePath(movieID int64, citySlug, day string, lf listingFilter) string {
	q := url.Values{}
	q.Set("city", citySlug)
	if day != "" {
		q.Set("date", day)
	}
	lf.encode(q)
	return "/movies/" + strconv.FormatInt(movieID, 10) + "?" + q.Encode()
}

func cityPath(slug, day string, lf listingFilter) string {
	q := url.Values{}
	if day != "" {
		q.Set("date", day)
	}
	lf.encode(q)
	if len(q) == 0 {
		return "/cities/" + url.PathEscape(slug)
	}
	return "/cities/" + url.PathEscape(slug) + "?" + q.Encode()
}

func theatrePath(id int64) string { return "/theatres/" + strconv.FormatInt(id, 10) }

// listingFilter narrows a listing page to the languages, formats and times
// of day its URL names: ?language=Hindi&format=IMAX+2D&time=evening, each
// of them as often as wanted. A show matches when it matches one of each.
type listingFilter struct {
	Languages []string
	Formats   []string
	Times     []catalog.TimeOfDay
}

const (
	maxFilterValues = 10 // of one parameter
	maxFilterLength = 40 // characters of a language's name, as the database allows
)

// parseListingFilter reads the filter of a listing's URL. Repeated values
// count once; a format or time of day the app does not know, or a
// language name no language has, is a 400 that says which.
func parseListingFilter(q url.Values) (listingFilter, error) {
	var f listingFilter
	languages := q["language"]
	if len(languages) > maxFilterValues || len(q["format"]) > maxFilterValues || len(q["time"]) > maxFilterValues {
		return f, problem.BadQuery("filter", "Choose at most 10 languages, formats or times of day.")
	}
	for _, l := range languages {
		l = strings.TrimSpace(l)
		if l == "" || utf8.RuneCountInString(l) > maxFilterLength || !utf8.ValidString(l) ||
			strings.IndexFunc(l, unicode.IsControl) >= 0 {
			return f, problem.BadQuery("language", "A language is a name of up to 40 letters.")
		}
		if !slices.Contains(f.Languages, l) {
			f.Languages = append(f.Languages, l)
		}
	}
	for _, v := range q["format"] {
		if !slices.Contains(catalog.Formats, v) {
			return f, problem.BadQuery("format", "Format must be one of "+strings.Join(catalog.Formats, ", ")+".")
		}
		if !slices.Contains(f.Formats, v) {
			f.Formats = append(f.Formats, v)
		}
	}
	for _, v := range q["time"] {
		i := slices.IndexFunc(catalog.TimesOfDay, func(t catalog.TimeOfDay) bool { return t.Slug == v })
		if i < 0 {
			return f, problem.BadQuery("time", "Time of day must be morning, afternoon, evening or night.")
		}
		if !slices.Contains(f.Times, catalog.TimesOfDay[i]) {
			f.Times = append(f.Times, catalog.TimesOfDay[i])
		}
	}
	return f, nil
}

func (f listingFilter) active() bool {
	return len(f.Languages)+len(f.Formats)+len(f.Times) > 0
}

// narrow applies f to a store filter.
func (f listingFilter) narrow(sf catalog.ShowtimeFilter) catalog.ShowtimeFilter {
	sf.Languages, sf.Formats, sf.Times = f.Languages, f.Formats, f.Times
	return sf
}

// encode adds f to the query of a URL.
func (f listingFilter) encode(q url.Values) {
	for _, l := range f.Languages {
		q.Add("language", l)
	}
	for _, v := range f.Formats {
		q.Add("format", v)
	}
	for _, t := range f.Times {
		q.Add("time", t.Slug)
	}
}

// timeHints say which hours each time of day covers, as a person reads them.
var timeHints = map[string]string{
	"morning": "before 12:00", "afternoon": "12:00 to 16:00", "evening": "16:00 to 19:00", "night": "after 19:00",
}

// filtersView is the filter form of a listing at action, which keeps the
// hidden parameters as they are. It offers the languages and formats on
// show (and any chosen that are not), every time of day, and a link
// without the filters.
func (f listingFilter) view(action string, hidden []components.Param, languages, formats []string, summary string) components.Filters {
	ids := map[string]int{}
	id := func(group, value string) string {
		base := "filter-" + group + "-" + slug(value)
		ids[base]++
		if n := ids[base]; n > 1 {
			return base + "-" + strconv.Itoa(n)
		}
		return base
	}
	options := func(group string, on, chosen []string) components.FilterGroup {
		g := components.FilterGroup{Name: group}
		for _, v := range on {
			g.Options = append(g.Options, components.FilterOption{ID: id(group, v), Value: v, Label: v, Checked: slices.Contains(chosen, v)})
		}
		for _, v := range chosen {
			if !slices.Contains(on, v) {
				g.Options = append(g.Options, components.FilterOption{ID: id(group, v), Value: v, Label: v, Checked: true})
			}
		}
		return g
	}
	v := components.Filters{Action: action, Hidden: hidden, Active: f.active(), Summary: summary}
	clear := url.Values{}
	for _, p := range hidden {
		clear.Set(p.Name, p.Value)
	}
	v.ClearHref = action
	if len(clear) > 0 {
		v.ClearHref += "?" + clear.Encode()
	}
	// A choice of one is no choice: a group shows when it offers two, or
	// one is chosen.
	if g := options("language", languages, f.Languages); len(g.Options) > 1 || len(f.Languages) > 0 {
		g.Legend = "Language"
		v.Groups = append(v.Groups, g)
	}
	if g := options("format", formats, f.Formats); len(g.Options) > 1 || len(f.Formats) > 0 {
		g.Legend = "Format"
		v.Groups = append(v.Groups, g)
	}
	times := components.FilterGroup{Legend: "Time of day", Name: "time"}
	for _, t := range catalog.TimesOfDay {
		times.Options = append(times.Options, components.FilterOption{
			ID: id("time", t.Slug), Value: t.Slug, Label: t.Name, Hint: timeHints[t.Slug], Checked: slices.Contains(f.Times, t),
		})
	}
	v.Groups = append(v.Groups, times)
	return v
}

// slug is s in lower case with every run of other characters than letters
// and digits made one dash: "IMAX 2D" -> "imax-2d".
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

// cityListing is what a city's listing pages start from: its theatres, the
// time zone of the first (a city's theatres share one), the browse week in
// it, and the filter the URL names.
func (s *Handlers) cityListing(c echo.Context, cityID int64) ([]catalog.Theatre, string, week, listingFilter, error) {
	ctx := c.Request().Context()
	theatres, err := s.Store.CityTheatres(ctx, cityID)
	if err != nil {
		return nil, "", week{}, listingFilter{}, err
	}
	tz := "UTC"
	if len(theatres) > 0 {
		tz = theatres[0].TimeZone
	}
	now, err := s.Store.Now(ctx)
	if err != nil {
		return nil, "", week{}, listingFilter{}, err
	}
	lf, err := parseListingFilter(c.QueryParams())
	return theatres, tz, weekFrom(now, tz), lf, err
}
