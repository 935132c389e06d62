package pages

import (
	"net/http"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// TheatrePage lists a theatre's shows of a day, by movie.
func (s *Handlers) TheatrePage(c echo.Context) error {
	ctx := c.Request().Context()
	id, err := web.ParseID(c.Param("theatre_id"))
	if err != nil {
		return problem.NotFound("theatre")
	}
	t, err := s.Store.Theatre(ctx, id)
	if err != nil {
		return problem.Lookup("theatre", err)
	}
	cities, err := s.Store.Cities(ctx)
	if err != nil {
		return err
	}
	city := components.City{Name: t.CityName}
	for _, ci := range cities {
		if ci.ID == t.CityID {
			city.Slug = ci.Slug
		}
	}
	now, err := s.Store.Now(ctx)
	if err != nil {
		return err
	}
	w := weekFrom(now, t.TimeZone)
	f := catalog.ShowtimeFilter{TheatreID: t.ID, Within: w.within}
	days, err := s.Store.ShowDays(ctx, f)
	if err != nil {
		return err
	}
	f.Date = w.chooseDay(c.QueryParam("date"), days)
	shows, err := s.Store.Showtimes(ctx, f)
	if err != nil {
		return err
	}
	v := components.TheatreView{
		Name: t.Name, Address: t.Address, City: city,
		DayLabel: w.dayLabel(f.Date),
		Days: w.strip(f.Date, days, func(d string) string {
			return theatrePath(t.ID) + "?date=" + d
		}),
		ZoneNote: "Times are " + format.ZoneAbbrev(now, t.TimeZone) + ", the theatre's local time.",
	}
	byMovie := map[int64]int{}
	for _, sh := range shows {
		i, ok := byMovie[sh.MovieID]
		if !ok {
			i = len(v.Movies)
			byMovie[sh.MovieID] = i
			v.Movies = append(v.Movies, components.TheatreShowtimes{
				Heading: sh.MovieTitle, Href: moviePath(sh.MovieID, city.Slug, f.Date), TimeZone: sh.TimeZone,
			})
		}
		v.Movies[i].Times = append(v.Movies[i].Times, showtimeView(sh))
	}
	m := s.Meta(c, t.Name)
	return web.Render(c, http.StatusOK, components.TheatrePage(m, v))
}
