package web

import (
	"net/url"
	"strconv"
	"time"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/postgres"
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
	l := now.In(zone(tz))
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
	t, err := time.ParseInLocation(time.DateOnly, day, zone(w.tz))
	if err != nil {
		return "on " + day
	}
	return "on " + t.Format("Mon, 2 Jan")
}

// chooseDay is the day a page shows: the one asked for when it is in the
// week, else the first day with shows, else today.
func (w week) chooseDay(asked string, withShows []string) string {
	if asked != "" && validDate(asked) && w.contains(asked) {
		return asked
	}
	if len(withShows) > 0 {
		return withShows[0]
	}
	return w.today.Format(time.DateOnly)
}

// showtimeView is one show as a listing links it.
func showtimeView(st postgres.Showtime) components.Showtime {
	few := st.SeatsLeft > 0 && (st.SeatsLeft <= 10 || st.SeatsLeft*10 <= st.TotalSeats)
	return components.Showtime{
		Href:      "/shows/" + strconv.FormatInt(st.ID, 10),
		Time:      clock(st.StartsAt, st.TimeZone),
		Screen:    st.ScreenName,
		SoldOut:   st.SoldOut(),
		FewLeft:   few,
		SeatsLeft: st.SeatsLeft,
	}
}

func moviePath(movieID int64, citySlug, day string) string {
	q := url.Values{}
	q.Set("city", citySlug)
	if day != "" {
		q.Set("date", day)
	}
	return "/movies/" + strconv.FormatInt(movieID, 10) + "?" + q.Encode()
}

func theatrePath(id int64) string { return "/theatres/" + strconv.FormatInt(id, 10) }
