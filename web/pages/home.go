package pages

import (
	"net/http"

	"github.com/marquee-tickets/marquee/web"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
)

// HomePage asks which city to browse. A remembered city goes straight to
// its page, unless the visitor asked to choose again (?choose=1).
func (s *Handlers) HomePage(c echo.Context) error {
	m := s.Meta(c, "")
	if m.City != nil && c.QueryParam("choose") == "" {
		return c.Redirect(http.StatusSeeOther, "/cities/"+m.City.Slug)
	}
	cities, err := s.Store.Cities(c.Request().Context())
	if err != nil {
		return err
	}
	v := components.HomeView{}
	if m.City != nil {
		v.Current = m.City.Slug
	}
	for _, city := range cities {
		v.Cities = append(v.Cities, components.City{Name: city.Name, Slug: city.Slug})
	}
	m.Title = "Choose your city"
	return web.Render(c, http.StatusOK, components.HomePage(m, v))
}
