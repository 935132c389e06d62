package compress

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// What Middleware leaves alone, each with an answer big enough to compress
// (the app's own images are too small in a test to tell).
func TestCompressLeavesAlone(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("A1 A2 A3 A4 "), 1000)
	blob := func(contentType string) echo.HandlerFunc {
		return func(c echo.Context) error { return c.Blob(http.StatusOK, contentType, big) }
	}
	e := echo.New()
	e.Use(Middleware(Config{Skip: []string{"/shows/:show_id/live"}}))
	e.GET("/page", blob("text/html; charset=utf-8"))
	e.GET("/bookings/:booking_id/qr.png", blob("image/png"))
	e.GET("/static/*", blob("image/webp"))
	e.GET("/shows/:show_id/live", blob("text/plain"))

	get := func(path string, header map[string]string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	if rec := get("/page", nil); rec.Header().Get("Content-Encoding") != "gzip" || rec.Body.Len() >= len(big) {
		t.Fatalf("a page is not compressed: Content-Encoding %q, %d bytes", rec.Header().Get("Content-Encoding"), rec.Body.Len())
	}
	for _, tc := range []struct {
		name, path string
		header     map[string]string
	}{
		{"a PNG", "/bookings/b1/qr.png", nil},
		{"a static image", "/static/img/poster.webp", nil},
		{"a range", "/page", map[string]string{"Range": "bytes=0-9"}},
		{"the live seat map", "/shows/1/live", map[string]string{"Upgrade": "websocket", "Connection": "Upgrade"}},
		{"a websocket anywhere", "/page", map[string]string{"Upgrade": "websocket", "Connection": "Upgrade"}},
	} {
		rec := get(tc.path, tc.header)
		if rec.Header().Get("Content-Encoding") != "" || !bytes.Equal(rec.Body.Bytes(), big) {
			t.Errorf("%s is compressed: Content-Encoding %q, %d bytes", tc.name, rec.Header().Get("Content-Encoding"), rec.Body.Len())
		}
	}
}
