package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
)

// homePage asks which city to browse. A remembered city goes straight to
// its page, unless the visitor asked to choose again (?choose=1).
func (s *server) homePage(c echo.Context) error {
	m := s.meta(c, "")
	if m.City != nil && c.QueryParam("choose") == "" {
		return c.Redirect(http.StatusSeeOther, "/cities/"+m.City.Slug)
	}
	cities, err := s.store.Cities(c.Request().Context())
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
	return render(c, http.StatusOK, components.HomePage(m, v))
}
