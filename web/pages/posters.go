package pages

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// MoviePoster serves a movie's poster image. Pages link it with its version
// in the URL (posterURL): that URL names one content and is cached for a
// year, and a new poster gets a new URL. A request without the current
// version (an old link, a script) is answered too, but revalidated each
// time by its ETag.
func (s *Handlers) MoviePoster(c echo.Context) error {
	id, err := web.ParseID(c.Param("movie_id"))
	if err != nil {
		return problem.NotFound("poster")
	}
	p, err := s.Store.Poster(c.Request().Context(), id)
	if err != nil {
		return problem.Lookup("poster", err)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, p.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", `"`+p.Version+`"`)
	if c.QueryParam("v") == p.Version {
		h.Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		h.Set(echo.HeaderCacheControl, "public, no-cache")
	}
	// ServeContent answers If-None-Match with 304 and serves ranges.
	http.ServeContent(c.Response(), c.Request(), "", time.Time{}, bytes.NewReader(p.Data))
	return nil
}

// posterURL is the versioned URL of a movie's poster.
func posterURL(movieID int64, p catalog.PosterInfo) string {
	return "/movies/" + strconv.FormatInt(movieID, 10) + "/poster?v=" + url.QueryEscape(p.Version)
}

// posterView is a movie's poster as a page shows it; nil without one.
func posterView(movieID int64, p *catalog.PosterInfo) *components.Poster {
	if p == nil {
		return nil
	}
	return &components.Poster{Src: posterURL(movieID, *p), Alt: p.Alt, Width: p.Width, Height: p.Height}
}
