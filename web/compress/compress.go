// Package compress gzips answers for clients that take gzip.
//
// Most answers are gzipped by Middleware as they are written. An answer
// with a part many viewers share (the seat map of a show, rendered once per
// change of its seats) compresses that part once too: on the routes whose
// handlers compress their own answers (Config.Own), Blob, SharedBlob and
// RenderShared copy the shared part's compressed bytes in (see gzjoin)
// where Middleware would have compressed the whole page for every viewer.
// Elsewhere they write the part as text, and Middleware does the rest.
package compress

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/marquee-tickets/marquee/internal/gzjoin"
)

// minLength is the smallest answer worth compressing: below it, gzip's
// own header and checksum eat most of what it saves.
const minLength = 1024

// ownKey is the echo.Context key of a request whose handler compresses
// its own answer.
const ownKey = "marquee.compress_own"

// Config names the routes Middleware leaves alone.
type Config struct {
	// Skip are routes whose answers are never gzipped: websockets, which
	// compress their own messages.
	Skip []string
	// Own are the routes whose handlers compress their own answers.
	Own []string
}

// Middleware gzips answers for clients that accept it: pages, fragments,
// JSON, CSS and JavaScript (the 360-seat show page shrinks from 121 KB to
// under 9 KB). It leaves alone what is compressed already (images), ranges
// of a file, websockets, and the answers of cfg's routes. (The metrics,
// which compress themselves, are served apart.)
func Middleware(cfg Config) echo.MiddlewareFunc {
	skip, own := map[string]bool{}, map[string]bool{}
	for _, r := range cfg.Skip {
		skip[r] = true
	}
	for _, r := range cfg.Own {
		own[r] = true
	}
	gz := middleware.GzipWithConfig(middleware.GzipConfig{
		MinLength: minLength,
		Skipper: func(c echo.Context) bool {
			req := c.Request()
			switch {
			case skip[c.Path()], own[c.Path()],
				req.Header.Get("Range") != "",
				req.Header.Get(echo.HeaderUpgrade) != "":
				return true
			}
			return precompressed[strings.ToLower(path.Ext(req.URL.Path))]
		},
	})
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		zipped := gz(next)
		return func(c echo.Context) error {
			if own[c.Path()] {
				c.Set(ownKey, true)
			}
			return zipped(c)
		}
	}
}

// precompressed are the file types whose content is compressed already:
// gzip would spend time to make them bigger.
var precompressed = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true,
	".woff": true, ".woff2": true, ".gz": true, ".br": true, ".zip": true,
}

// ownAnswer reports whether c's handler compresses its answer itself.
func ownAnswer(c echo.Context) bool {
	own, _ := c.Get(ownKey).(bool)
	return own
}

// sharedMarker stands where the shared part goes in a rendered page: an
// HTML comment no text of ours contains.
const sharedMarker = "<!--marquee:shared-part-->"

// Shared is a part of answers many viewers share, compressed once. As a
// component it renders where the part goes; RenderShared puts it there.
type Shared struct{ Piece *gzjoin.Piece }

// Render writes the part's place.
func (Shared) Render(_ context.Context, w io.Writer) error {
	_, err := io.WriteString(w, sharedMarker)
	return err
}

// RenderShared writes comp with status, with part where comp renders it.
func RenderShared(c echo.Context, status int, comp templ.Component, part Shared) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	before, after, found := bytes.Cut(buf.Bytes(), []byte(sharedMarker))
	if !found {
		return c.HTMLBlob(status, buf.Bytes())
	}
	return writeShared(c, status, echo.MIMETextHTMLCharsetUTF8, before, part.Piece, after)
}

// SharedBlob writes piece alone as the answer, of type contentType.
func SharedBlob(c echo.Context, status int, contentType string, piece *gzjoin.Piece) error {
	return writeShared(c, status, contentType, nil, piece, nil)
}

// Blob writes b as the answer, of type contentType: compressed here on
// the routes that compress their own answers, else by Middleware.
func Blob(c echo.Context, status int, contentType string, b []byte) error {
	if !ownAnswer(c) {
		return c.Blob(status, contentType, b)
	}
	return writeShared(c, status, contentType, b, nil, nil)
}

// writeShared answers before, piece (may be nil) and after, gzipped with
// piece's bytes copied in when the route compresses its own answers and the
// client takes gzip, else as text.
func writeShared(c echo.Context, status int, contentType string, before []byte, piece *gzjoin.Piece, after []byte) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, contentType)
	self := ownAnswer(c)
	if self {
		// As Middleware does; on one line with the others (Cookie), where
		// every reader of the header sees them.
		h.Set(echo.HeaderVary, strings.Join(append(h.Values(echo.HeaderVary), echo.HeaderAcceptEncoding), ", "))
	}
	if !self || !acceptsGzip(c.Request()) {
		c.Response().WriteHeader(status)
		for _, part := range [][]byte{before, []byte(piece.Text()), after} {
			if _, err := c.Response().Write(part); err != nil {
				return err
			}
		}
		return nil
	}
	if piece == nil && len(after) == 0 && len(before) < minLength {
		c.Response().WriteHeader(status)
		_, err := c.Response().Write(before)
		return err
	}
	h.Add(echo.HeaderVary, echo.HeaderAcceptEncoding)
	h.Set(echo.HeaderContentEncoding, "gzip")
	var out bytes.Buffer
	out.Grow(piece.Size() + (len(before)+len(after))/4 + 64)
	if err := gzipParts(&out, before, piece, after); err != nil {
		return err
	}
	c.Response().WriteHeader(status)
	_, err := io.Copy(c.Response(), &out)
	return err
}

// acceptsGzip reports whether the request takes a gzip answer.
func acceptsGzip(r *http.Request) bool {
	for _, enc := range strings.Split(r.Header.Get(echo.HeaderAcceptEncoding), ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(enc), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// gzipParts writes before, piece (may be nil) and after as one gzip stream.
func gzipParts(out io.Writer, before []byte, piece *gzjoin.Piece, after []byte) error {
	w := gzjoin.NewWriter(out)
	if _, err := w.Write(before); err != nil {
		return err
	}
	if piece != nil {
		if err := w.WritePiece(piece); err != nil {
			return err
		}
	}
	if _, err := w.Write(after); err != nil {
		return err
	}
	return w.Close()
}
