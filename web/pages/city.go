package pages

import (
	"net/http"
	"strings"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

const cityCookieLifetime = 365 * 24 * time.Hour

// CityPage lists the movies showing in a city this week, or on one day,
// and remembers the city for the next visit.
func (s *Handlers) CityPage(c echo.Context) error {
	ctx := c.Request().Context()
	slug := c.Param("slug")
	if !web.CityPattern.MatchString(slug) {
		return problem.NotFound("city")
	}
	city, err := s.Store.CityBySlug(ctx, slug)
	if err != nil {
		return problem.Lookup("city", err)
	}
	c.SetCookie(&http.Cookie{
		Name: web.CityCookie, Value: city.Slug, Path: "/", MaxAge: int(cityCookieLifetime.Seconds()),
		HttpOnly: true, Secure: s.Secure(), SameSite: http.SameSiteLaxMode,
	})
	theatres, tz, w, lf, err := s.cityListing(c, city.ID)
	if err != nil {
		return err
	}
	f := lf.narrow(catalog.ShowtimeFilter{CityID: city.ID, Within: w.within})
	days, err := s.Store.ShowDays(ctx, f)
	if err != nil {
		return err
	}
	day := c.QueryParam("date")
	if !format.ValidDate(day) || !w.contains(day) {
		day = ""
	}
	f.Date = day
	languages, formats, err := s.Store.ShowFacets(ctx, f)
	if err != nil {
		return err
	}
	movies, err := s.Store.MoviesShowing(ctx, f)
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
		Filters: lf.view("/cities/"+city.Slug, hidden, languages, formats, format.Plural(len(movies), "movie")+" showing "+w.dayLabel(day)),
	}
	for i, mv := range movies {
		first := day
		if first == "" {
			first = mv.FirstShow.In(format.Zone(tz)).Format(time.DateOnly)
		}
		note := format.Plural(mv.Shows, "show") + " in " + format.Plural(mv.Theatres, "theatre")
		if day == "" {
			note += " · next " + format.Date(mv.FirstShow, tz) + ", " + format.Clock(mv.FirstShow, tz)
		}
		v.Movies = append(v.Movies, components.MovieCard{
			Href: filteredMoviePath(mv.ID, city.Slug, first, lf), Title: mv.Title, Rating: mv.Rating,
			Duration: format.Duration(mv.DurationMinutes), Synopsis: mv.Synopsis, Note: note,
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
	m := s.Meta(c, "Movies in "+city.Name)
	m.City = &v.City // the cookie set now is not in this request yet
	return web.Render(c, http.StatusOK, components.CityPage(m, v))
}
