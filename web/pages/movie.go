package pages

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// MoviePage lists the theatres of a city showing a movie on a day, with
// their showtimes; sold-out shows say so.
func (s *Handlers) MoviePage(c echo.Context) error {
	ctx := c.Request().Context()
	movieID, err := web.ParseID(c.Param("movie_id"))
	if err != nil {
		return problem.NotFound("movie")
	}
	movie, err := s.Store.Movie(ctx, movieID)
	if err != nil {
		return problem.Lookup("movie", err)
	}
	slug := c.QueryParam("city")
	if slug == "" {
		if ck, err := c.Cookie(web.CityCookie); err == nil {
			slug = ck.Value
		}
	}
	if !web.CityPattern.MatchString(slug) {
		return c.Redirect(http.StatusSeeOther, "/?choose=1")
	}
	city, err := s.Store.CityBySlug(ctx, slug)
	if err != nil {
		return problem.Lookup("city", err)
	}
	theatres, _, w, lf, err := s.cityListing(c, city.ID)
	if err != nil {
		return err
	}
	f := lf.narrow(catalog.ShowtimeFilter{CityID: city.ID, MovieID: movie.ID, Within: w.within})
	days, err := s.Store.ShowDays(ctx, f)
	if err != nil {
		return err
	}
	f.Date = w.chooseDay(c.QueryParam("date"), days)
	languages, formats, err := s.Store.ShowFacets(ctx, f)
	if err != nil {
		return err
	}
	shows, err := s.Store.Showtimes(ctx, f)
	if err != nil {
		return err
	}

	hidden := []components.Param{{Name: "city", Value: city.Slug}, {Name: "date", Value: f.Date}}
	action := "/movies/" + strconv.FormatInt(movie.ID, 10)
	v := components.MovieView{
		Title: movie.Title, Rating: movie.Rating, Duration: format.Duration(movie.DurationMinutes), Synopsis: movie.Synopsis,
		Language: movie.Language, Genres: strings.Join(movie.Genres, ", "), Poster: posterView(movie.ID, movie.Poster),
		City:     components.City{Name: city.Name, Slug: city.Slug},
		DayLabel: w.dayLabel(f.Date),
		Days:     w.strip(f.Date, days, func(d string) string { return filteredMoviePath(movie.ID, city.Slug, d, lf) }),
		Filters:  lf.view(action, hidden, languages, formats, format.Plural(len(shows), "showtime")+" "+w.dayLabel(f.Date)),
	}
	byTheatre := map[int64]int{}
	for _, sh := range shows {
		i, ok := byTheatre[sh.TheatreID]
		if !ok {
			i = len(v.Theatres)
			byTheatre[sh.TheatreID] = i
			addr := ""
			for _, t := range theatres {
				if t.ID == sh.TheatreID {
					addr = t.Address
				}
			}
			v.Theatres = append(v.Theatres, components.TheatreShowtimes{
				Heading: sh.TheatreName, Href: theatrePath(sh.TheatreID), Sub: addr, TimeZone: sh.TimeZone,
			})
		}
		v.Theatres[i].Times = append(v.Theatres[i].Times, showtimeView(sh))
	}
	m := s.Meta(c, movie.Title+" in "+city.Name)
	return web.Render(c, http.StatusOK, components.MoviePage(m, v))
}
