package web

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/static"
)

// StaticFiles serves the embedded files under /static/. A URL carrying the
// file's current content hash (static.URL makes them) is cached for a year:
// a new build changes the URL. Any other request is cached briefly.
func StaticFiles() echo.HandlerFunc {
	files := http.FileServerFS(static.FS)
	return func(c echo.Context) error {
		name := strings.TrimPrefix(c.Param("*"), "/")
		if name == "" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".go") {
			return echo.ErrNotFound
		}
		if _, err := fs.Stat(static.FS, name); err != nil {
			return echo.ErrNotFound
		}
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		if v := c.QueryParam("v"); v != "" && v == static.Hash(name) {
			h.Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
		} else {
			h.Set(echo.HeaderCacheControl, "public, max-age=300")
		}
		req := c.Request().Clone(c.Request().Context())
		req.URL.Path = "/" + name
		files.ServeHTTP(c.Response(), req)
		return nil
	}
}
