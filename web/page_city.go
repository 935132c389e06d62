package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const cityCookieLifetime = 365 * 24 * time.Hour

// cityPage lists the movies showing in a city this week, or on one day,
// and remembers the city for the next visit.
func (s *server) cityPage(c echo.Context) error {
	ctx := c.Request().Context()
	slug := c.Param("slug")
	if !cityPattern.MatchString(slug) {
		return notFound("city")
	}
	city, err := s.store.CityBySlug(ctx, slug)
	if err != nil {
		return lookup("city", err)
	}
	c.SetCookie(&http.Cookie{
		Name: cityCookie, Value: city.Slug, Path: "/", MaxAge: int(cityCookieLifetime.Seconds()),
		HttpOnly: true, Secure: s.secure(), SameSite: http.SameSiteLaxMode,
	})
	theatres, err := s.store.CityTheatres(ctx, city.ID)
	if err != nil {
		return err
	}
	tz := "UTC"
	if len(theatres) > 0 {
		tz = theatres[0].TimeZone
	}
	now, err := s.store.Now(ctx)
	if err != nil {
		return err
	}
	w := weekFrom(now, tz)
	lf, err := parseListingFilter(c.QueryParams())
	if err != nil {
		return err
	}
	f := lf.narrow(postgres.ShowtimeFilter{CityID: city.ID, Within: w.within})
	days, err := s.store.ShowDays(ctx, f)
	if err != nil {
		return err
	}
	day := c.QueryParam("date")
	if !validDate(day) || !w.contains(day) {
		day = ""
	}
	f.Date = day
	languages, formats, err := s.store.ShowFacets(ctx, f)
	if err != nil {
		return err
	}
	movies, err := s.store.MoviesShowing(ctx, f)
	if err != nil {
		return err
	}

	var hidden []components.Param
	if day != "" {
		hidden = append(hidden, components.Param{Name: "date", Value: day})
	}
	v := components.CityView{
		City:     components.City{Name: city.Name, Slug: city.Slug},
		DayLabel: w.dayLabel(day),
		Days: w.strip(day, days, func(d string) string {
			if d == day {
				return cityPath(city.Slug, "", lf) // a second click shows the whole week again
			}
			return cityPath(city.Slug, d, lf)
		}),
		Filters: lf.view("/cities/"+city.Slug, hidden, languages, formats, plural(len(movies), "movie")+" showing "+w.dayLabel(day)),
	}
	for i, mv := range movies {
		first := day
		if first == "" {
			first = mv.FirstShow.In(zone(tz)).Format(time.DateOnly)
		}
		note := plural(mv.Shows, "show") + " in " + plural(mv.Theatres, "theatre")
		if day == "" {
			note += " · next " + shortDate(mv.FirstShow, tz) + ", " + clock(mv.FirstShow, tz)
		}
		v.Movies = append(v.Movies, components.MovieCard{
			Href: filteredMoviePath(mv.ID, city.Slug, first, lf), Title: mv.Title, Rating: mv.Rating,
			Duration: duration(mv.DurationMinutes), Synopsis: mv.Synopsis, Note: note,
			Genres: strings.Join(mv.Genres, ", "), Languages: strings.Join(mv.Languages, ", "),
			Formats: strings.Join(mv.Formats, ", "),
			Poster:  posterView(mv.ID, mv.Poster),
			// The first row of cards is on screen at once; the rest load as
			// they scroll into view.
			LazyPoster: i >= 2,
		})
	}
	for _, t := range theatres {
		v.Theatres = append(v.Theatres, components.TheatreLink{Href: theatrePath(t.ID), Name: t.Name, Address: t.Address})
	}
	m := s.meta(c, "Movies in "+city.Name)
	m.City = &v.City // the cookie set now is not in this request yet
	return render(c, http.StatusOK, components.CityPage(m, v))
}

// plural is "1 show", "3 shows".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
