package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/gzjoin"
)

// Answers with a part many viewers share (the seat map of a show, rendered
// once per change of its seats) compress that part once too: on the routes
// below the handler compresses its own answer, copying the shared part's
// compressed bytes in (see gzjoin) where compress would have compressed the
// whole page for every viewer. Elsewhere the part is written as text, and
// compress does the rest.

// The routes whose handlers compress their own answers.
const (
	ShowRoute       = "/shows/:show_id"
	SeatMapRoute    = "/shows/:show_id/seatmap"
	SeatMapAPIRoute = "/api/v1/shows/:show_id/seats"
)

var selfCompressed = map[string]bool{ShowRoute: true, SeatMapRoute: true, SeatMapAPIRoute: true}

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
// the routes that compress their own answers, else by compress.
func Blob(c echo.Context, status int, contentType string, b []byte) error {
	if !selfCompressed[c.Path()] {
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
	self := selfCompressed[c.Path()]
	if self {
		// As compress does; on one line with the others (Cookie), where
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
	if piece == nil && len(after) == 0 && len(before) < compressMinLength {
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
