package admin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/names"
)

// What a poster upload can run into (the API answers 413, 415 and 422).
var (
	ErrPosterTooLarge   = fmt.Errorf("admin: a poster is at most %d bytes", MaxPosterBytes)
	ErrUnsupportedImage = errors.New("admin: a poster is a PNG, JPEG or WebP image")
	ErrInvalidImage     = errors.New("admin: the poster image cannot be decoded")
)

// Posters are stored at most this size, their aspect ratio kept; a
// smaller upload is never enlarged.
const (
	MaxPosterBytes  = 2 << 20
	posterMaxWidth  = 640
	posterMaxHeight = 960
	posterQuality   = 85
	maxGenres       = 6
)

// CreateMovie adds a movie to the catalogue (a platform admin's task).
// A bad field is a *catalog.FieldError naming it.
func (s *Service) CreateMovie(ctx context.Context, a Actor, m catalog.Movie) (int64, error) {
	if err := requirePlatform(a); err != nil {
		return 0, err
	}
	if err := checkMovie(m); err != nil {
		return 0, err
	}
	id, err := s.Store.AdminCreateMovie(ctx, m, func(id int64) audit.Entry {
		return auditEntry(a, 0, "movie.create", fmt.Sprintf("movie %d", id), nil, map[string]any{
			"title": m.Title, "duration_minutes": m.DurationMinutes, "rating": m.Rating,
			"language": m.Language, "genres": m.Genres,
		})
	})
	if err != nil {
		return 0, fmt.Errorf("create movie: %w", err)
	}
	return id, nil
}

// checkMovie reports every field of m at fault at once: an errors.Join of
// one *catalog.FieldError per field, in the order of the movie form
// (errors.As finds the first; catalog.Problems lists them all).
func checkMovie(m catalog.Movie) error { return checkMovieFields(m, nil) }

// checkMovieFields is checkMovie of the fields only names (all when nil).
func checkMovieFields(m catalog.Movie, only map[string]bool) error {
	var problems []error
	for _, c := range movieChecks {
		if only != nil && !only[c.field] {
			continue
		}
		if msg := c.problem(m); msg != "" {
			problems = append(problems, &catalog.FieldError{Field: c.field, Message: msg})
		}
	}
	return errors.Join(problems...)
}

// hiddenIn is the problem with a movie's field what holding a character
// names.Hidden finds, as a sentence; "" if it holds none. The synopsis is
// prose and shown as a paragraph of its own, and keeps what it is given.
func hiddenIn(what, s string) string {
	if r, ok := names.Hidden(s); ok {
		return names.Problem(what, r) + "."
	}
	return ""
}

// movieChecks are the rules of a movie's fields, in the form's order.
var movieChecks = []struct {
	field   string
	problem func(catalog.Movie) string
}{
	{"title", func(m catalog.Movie) string {
		if !textOK(m.Title, 1, 200) {
			return "A movie needs a title of 1 to 200 characters."
		}
		return hiddenIn("The title", m.Title)
	}},
	{"duration_minutes", func(m catalog.Movie) string {
		if m.DurationMinutes < 1 || m.DurationMinutes > 600 {
			return "The running time must be 1 to 600 minutes."
		}
		return ""
	}},
	{"rating", func(m catalog.Movie) string {
		if !textOK(m.Rating, 0, 20) {
			return "The rating is at most 20 characters, like UA or PG-13."
		}
		return hiddenIn("The rating", m.Rating)
	}},
	{"language", func(m catalog.Movie) string {
		if !textOK(m.Language, 0, 40) {
			return "The language is at most 40 characters."
		}
		return hiddenIn("The language", m.Language)
	}},
	{"genres", func(m catalog.Movie) string {
		if len(m.Genres) > maxGenres {
			return fmt.Sprintf("A movie has at most %d genres.", maxGenres)
		}
		for _, g := range m.Genres {
			if !textOK(g, 1, 40) {
				return "Each genre is 1 to 40 characters."
			}
			if msg := hiddenIn("A genre", g); msg != "" {
				return msg
			}
		}
		return ""
	}},
	{"synopsis", func(m catalog.Movie) string {
		if !utf8.ValidString(m.Synopsis) || strings.ContainsRune(m.Synopsis, 0) || utf8.RuneCountInString(m.Synopsis) > 5000 {
			return "The synopsis is at most 5000 characters."
		}
		return ""
	}},
}

// UpdateMovie changes the fields of a movie that p sets (a platform
// admin's task, as adding one is). Every field at fault is reported at
// once (see checkMovie) and nothing changes. A new running time moves the
// end of the movie's upcoming shows, or is refused when that would make
// one overlap the next show on its screen (see
// postgres.(*Store).AdminUpdateMovie). A change that changes nothing is
// not audited.
func (s *Service) UpdateMovie(ctx context.Context, a Actor, movieID int64, p catalog.MoviePatch) (catalog.MovieUpdate, error) {
	if err := requirePlatform(a); err != nil {
		return catalog.MovieUpdate{}, err
	}
	p = trimMovie(p)
	only := map[string]bool{"title": p.Title != nil, "duration_minutes": p.DurationMinutes != nil, "rating": p.Rating != nil,
		"language": p.Language != nil, "genres": p.Genres != nil, "synopsis": p.Synopsis != nil}
	if err := checkMovieFields(p.Apply(catalog.Movie{}), only); err != nil {
		return catalog.MovieUpdate{}, err
	}
	before, err := s.Store.Movie(ctx, movieID)
	if err != nil {
		return catalog.MovieUpdate{}, err
	}
	if p = unchanged(p, before); p.Empty() {
		return catalog.MovieUpdate{Movie: before, Before: before}, nil
	}
	up, err := s.Store.AdminUpdateMovie(ctx, movieID, p, func(up catalog.MovieUpdate) audit.Entry {
		after := movieRecord(up.Movie)
		if len(up.ShowsMoved) > 0 {
			after["shows_moved"] = up.ShowsMoved
			after["ends_moved_minutes"] = int(up.EndsMovedBy / time.Minute)
		}
		return auditEntry(a, 0, "movie.update", fmt.Sprintf("movie %d", movieID), movieRecord(up.Before), after)
	})
	if err != nil {
		return up, err
	}
	return up, nil
}

// movieRecord is a movie as the audit log keeps it.
func movieRecord(m catalog.Movie) map[string]any {
	genres := m.Genres
	if genres == nil {
		genres = []string{}
	}
	return map[string]any{"title": m.Title, "duration_minutes": m.DurationMinutes, "rating": m.Rating,
		"language": m.Language, "genres": genres, "synopsis": m.Synopsis}
}

// trimMovie trims the spaces around each text of p, and drops empty genres.
func trimMovie(p catalog.MoviePatch) catalog.MoviePatch {
	trim := func(s *string) *string {
		if s == nil {
			return nil
		}
		t := strings.TrimSpace(*s)
		return &t
	}
	p.Title, p.Rating, p.Language, p.Synopsis = trim(p.Title), trim(p.Rating), trim(p.Language), trim(p.Synopsis)
	if p.Genres != nil {
		genres := []string{}
		for _, g := range *p.Genres {
			if g = strings.TrimSpace(g); g != "" {
				genres = append(genres, g)
			}
		}
		p.Genres = &genres
	}
	return p
}

// unchanged leaves out of p what m already is.
func unchanged(p catalog.MoviePatch, m catalog.Movie) catalog.MoviePatch {
	same := func(v *string, was string) *string {
		if v != nil && *v == was {
			return nil
		}
		return v
	}
	p.Title, p.Rating, p.Language, p.Synopsis = same(p.Title, m.Title), same(p.Rating, m.Rating), same(p.Language, m.Language), same(p.Synopsis, m.Synopsis)
	if p.DurationMinutes != nil && *p.DurationMinutes == m.DurationMinutes {
		p.DurationMinutes = nil
	}
	if p.Genres != nil && slices.Equal(*p.Genres, m.Genres) {
		p.Genres = nil
	}
	return p
}

// textOK reports whether s is printable text of min to max characters,
// not counting surrounding spaces.
func textOK(s string, min, max int) bool {
	n := utf8.RuneCountInString(strings.TrimSpace(s))
	return n >= min && n <= max && printable(s)
}

// SetPoster makes data, the bytes of a PNG, JPEG or WebP image, the poster
// of a movie (a platform admin's task): decoded, shrunk to fit 640x960,
// and stored as PNG (a PNG) or JPEG (the others). alt is its text
// alternative; "" makes one of the title.
func (s *Service) SetPoster(ctx context.Context, a Actor, movieID int64, data []byte, alt string) (catalog.PosterInfo, error) {
	if err := requirePlatform(a); err != nil {
		return catalog.PosterInfo{}, err
	}
	if len(data) > MaxPosterBytes {
		return catalog.PosterInfo{}, ErrPosterTooLarge
	}
	if alt != "" && !textOK(alt, 1, 300) {
		return catalog.PosterInfo{}, &catalog.FieldError{Field: "alt", Message: "The text alternative is 1 to 300 characters."}
	}
	poster, err := s.encodePoster(ctx, data)
	if err != nil {
		return catalog.PosterInfo{}, err
	}
	m, err := s.Store.Movie(ctx, movieID)
	if err != nil {
		return catalog.PosterInfo{}, err
	}
	poster.Alt = strings.TrimSpace(alt)
	if poster.Alt == "" {
		poster.Alt = truncate("Poster of "+m.Title, 300)
	}
	info, err := s.Store.AdminSetPoster(ctx, movieID, poster, func(info catalog.PosterInfo) audit.Entry {
		return auditEntry(a, 0, "movie.set_poster", fmt.Sprintf("movie %d", movieID), nil, map[string]any{
			"version": info.Version, "width": info.Width, "height": info.Height,
			"content_type": poster.ContentType, "bytes": len(poster.Data), "alt": poster.Alt,
		})
	})
	if err != nil {
		return info, fmt.Errorf("set poster: %w", err)
	}
	return info, nil
}

// encodePoster decodes an upload of a type sniffed from its bytes (never
// the type the client claims) and encodes it again at poster size. The
// new encoding also drops whatever metadata the upload carried. An image
// is judged from its header before it is decoded (checkPosterSize), and
// decoded in one of a few slots; the caller has its answer, or ctx's
// error, when ctx ends, while the slot stays taken until the work stops.
func (s *Service) encodePoster(ctx context.Context, data []byte) (catalog.Poster, error) {
	kind := http.DetectContentType(data)
	decode := map[string]func(io.Reader) (image.Image, error){
		"image/png":  png.Decode,
		"image/jpeg": jpeg.Decode,
		"image/webp": webp.Decode,
	}[kind]
	if decode == nil {
		return catalog.Poster{}, ErrUnsupportedImage
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return catalog.Poster{}, ErrInvalidImage
	}
	if err := checkPosterSize(cfg, kind, data); err != nil {
		return catalog.Poster{}, err
	}
	slots := s.posterSlots()
	if err := slots.acquire(ctx); err != nil {
		return catalog.Poster{}, err
	}
	type result struct {
		poster catalog.Poster
		err    error
	}
	done := make(chan result, 1)
	go func() {
		defer slots.release()
		p, err := resizePoster(ctx, decode, data, kind == "image/png")
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.poster, r.err
	case <-ctx.Done():
		return catalog.Poster{}, fmt.Errorf("resize poster: %w", ctx.Err())
	}
}

// resizePoster decodes data, fits it to the poster's size and encodes it:
// as PNG when isPNG, else as JPEG. The decoder reads through ctx, so it
// stops when ctx ends.
func resizePoster(ctx context.Context, decode func(io.Reader) (image.Image, error), data []byte, isPNG bool) (catalog.Poster, error) {
	img, err := decode(ctxReader{ctx: ctx, r: bytes.NewReader(data)})
	if ctx.Err() != nil {
		return catalog.Poster{}, fmt.Errorf("decode poster: %w", ctx.Err())
	}
	if err != nil {
		return catalog.Poster{}, ErrInvalidImage
	}
	img = fitPoster(img, !isPNG)
	if ctx.Err() != nil {
		return catalog.Poster{}, fmt.Errorf("resize poster: %w", ctx.Err())
	}
	var buf bytes.Buffer
	p := catalog.Poster{PosterInfo: catalog.PosterInfo{Width: img.Bounds().Dx(), Height: img.Bounds().Dy()}}
	if isPNG {
		p.ContentType, err = "image/png", png.Encode(&buf, img)
	} else {
		p.ContentType, err = "image/jpeg", jpeg.Encode(&buf, img, &jpeg.Options{Quality: posterQuality})
	}
	if err != nil {
		return p, fmt.Errorf("encode poster: %w", err)
	}
	p.Data = buf.Bytes()
	return p, nil
}

// posterFit is the size an image of w x h pixels is stored at: scaled
// down to fit posterMaxWidth x posterMaxHeight, its aspect ratio kept,
// never enlarged.
func posterFit(w, h int) (int, int) {
	if w <= posterMaxWidth && h <= posterMaxHeight {
		return w, h
	}
	// The smaller of the two ratios, in integers: no rounding up past
	// the limit.
	if w*posterMaxHeight > h*posterMaxWidth {
		return posterMaxWidth, max(1, h*posterMaxWidth/w)
	}
	return max(1, w*posterMaxHeight/h), posterMaxHeight
}

// fitPoster scales img down (CatmullRom) to fit posterMaxWidth x
// posterMaxHeight, keeping its aspect ratio. For a JPEG (opaque) it also
// lays the image on white, so transparent parts do not turn black.
func fitPoster(img image.Image, opaque bool) image.Image {
	b := img.Bounds()
	w, h := posterFit(b.Dx(), b.Dy())
	if w == b.Dx() && h == b.Dy() && !opaque {
		return img
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	op := draw.Src
	if opaque {
		draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
		op = draw.Over
	}
	if w == b.Dx() && h == b.Dy() {
		draw.Draw(dst, dst.Bounds(), img, b.Min, op)
	} else {
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, op, nil)
	}
	return dst
}

// truncate cuts s to at most n characters.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
