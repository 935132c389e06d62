package admin_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestCreateMovie(t *testing.T) {
	e := newEnv(t)
	good := catalog.Movie{Title: "Night Train", DurationMinutes: 131, Rating: "UA", Language: "Hindi",
		Synopsis: "Two strangers.\nOne night.", Genres: []string{"Drama", "Thriller"}}

	id, err := e.svc.CreateMovie(ctx, e.platform, good)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.store.Movie(ctx, id)
	if err != nil || m.Title != good.Title || m.DurationMinutes != 131 || len(m.Genres) != 2 {
		t.Fatalf("movie = %+v, %v", m, err)
	}
	if n := e.audits(t, "movie.create"); n != 1 {
		t.Fatalf("%d movie.create entries", n)
	}

	t.Run("a theatre admin may not", func(t *testing.T) {
		if _, err := e.svc.CreateMovie(ctx, e.theatre, good); !errors.Is(err, admin.ErrPlatformOnly) {
			t.Fatalf("CreateMovie = %v", err)
		}
	})
	for _, tc := range []struct {
		name, field string
		edit        func(*catalog.Movie)
	}{
		{"no title", "title", func(m *catalog.Movie) { m.Title = " " }},
		{"a long title", "title", func(m *catalog.Movie) { m.Title = strings.Repeat("x", 201) }},
		{"no running time", "duration_minutes", func(m *catalog.Movie) { m.DurationMinutes = 0 }},
		{"a running time over ten hours", "duration_minutes", func(m *catalog.Movie) { m.DurationMinutes = 601 }},
		{"seven genres", "genres", func(m *catalog.Movie) { m.Genres = strings.Split("a b c d e f g", " ") }},
		{"an empty genre", "genres", func(m *catalog.Movie) { m.Genres = []string{""} }},
		{"a NUL in the synopsis", "synopsis", func(m *catalog.Movie) { m.Synopsis = "a\x00" }},
		{"a long language", "language", func(m *catalog.Movie) { m.Language = strings.Repeat("x", 41) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := good
			tc.edit(&m)
			_, err := e.svc.CreateMovie(ctx, e.platform, m)
			var bad *catalog.FieldError
			if !errors.As(err, &bad) || bad.Field != tc.field {
				t.Fatalf("CreateMovie = %v, want a %s error", err, tc.field)
			}
		})
	}
	if n := pgtest.Scalar[int64](t, e.store.Pool(), `SELECT count(*) FROM movies`); n != 2 { // the venue's and good
		t.Fatalf("%d movies", n)
	}
}

func encoded(t *testing.T, w, h int, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 200, 255})
		}
	}
	var buf bytes.Buffer
	if err := enc(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngOf(b *bytes.Buffer, img image.Image) error  { return png.Encode(b, img) }
func jpegOf(b *bytes.Buffer, img image.Image) error { return jpeg.Encode(b, img, nil) }
func gifOf(b *bytes.Buffer, img image.Image) error  { return gif.Encode(b, img, nil) }

func TestSetPoster(t *testing.T) {
	e := newEnv(t)
	webp, err := os.ReadFile("testdata/poster.webp") // 150x100
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		data        []byte
		w, h        int
		contentType string
	}{
		{"a large PNG shrinks to fit and stays PNG", encoded(t, 1280, 1280, pngOf), 640, 640, "image/png"},
		{"a tall JPEG fits the height", encoded(t, 500, 1500, jpegOf), 320, 960, "image/jpeg"},
		{"a small JPEG is never enlarged", encoded(t, 200, 300, jpegOf), 200, 300, "image/jpeg"},
		{"a WebP becomes JPEG", webp, 150, 100, "image/jpeg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := e.svc.SetPoster(ctx, e.platform, e.venue.MovieID, tc.data, "")
			if err != nil {
				t.Fatal(err)
			}
			p, err := e.store.Poster(ctx, e.venue.MovieID)
			if err != nil {
				t.Fatal(err)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(p.Data))
			if err != nil || "image/"+format != tc.contentType || p.ContentType != tc.contentType ||
				cfg.Width != tc.w || cfg.Height != tc.h || info.Width != tc.w || info.Height != tc.h {
				t.Fatalf("stored %s %dx%d (%s, %v), info %+v; want %s %dx%d", p.ContentType, cfg.Width, cfg.Height, format, err, info, tc.contentType, tc.w, tc.h)
			}
			if p.Alt != "Poster of The Last Algorithm" || info.Version == "" || p.Version != info.Version {
				t.Fatalf("poster = %+v, info %+v", p.PosterInfo, info)
			}
		})
	}
	audited := e.audits(t, "movie.set_poster")
	if audited != 4 {
		t.Fatalf("%d movie.set_poster entries, want 4", audited)
	}

	t.Run("the alt text may be given", func(t *testing.T) {
		info, err := e.svc.SetPoster(ctx, e.platform, e.venue.MovieID, encoded(t, 10, 10, pngOf), "A robot at dusk")
		if err != nil || info.Alt != "A robot at dusk" {
			t.Fatalf("SetPoster = %+v, %v", info, err)
		}
		audited++
	})

	before, _ := e.store.Poster(ctx, e.venue.MovieID)
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"a GIF", encoded(t, 10, 10, gifOf), admin.ErrUnsupportedImage},
		{"text", []byte("<svg xmlns='http://www.w3.org/2000/svg'/>"), admin.ErrUnsupportedImage},
		{"a PNG cut short", encoded(t, 300, 300, pngOf)[:200], admin.ErrInvalidImage},
		{"a PNG header and nothing else", []byte("\x89PNG\r\n\x1a\n"), admin.ErrInvalidImage},
		{"more than 2 MiB", append(encoded(t, 10, 10, pngOf), make([]byte, admin.MaxPosterBytes)...), admin.ErrPosterTooLarge},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			if _, err := e.svc.SetPoster(ctx, e.platform, e.venue.MovieID, tc.data, ""); !errors.Is(err, tc.want) {
				t.Fatalf("SetPoster = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("only a platform admin may", func(t *testing.T) {
		if _, err := e.svc.SetPoster(ctx, e.theatre, e.venue.MovieID, encoded(t, 10, 10, pngOf), ""); !errors.Is(err, admin.ErrPlatformOnly) {
			t.Fatalf("SetPoster = %v", err)
		}
	})
	t.Run("an unknown movie is not found", func(t *testing.T) {
		if _, err := e.svc.SetPoster(ctx, e.platform, 999999, encoded(t, 10, 10, pngOf), ""); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("SetPoster = %v", err)
		}
	})
	after, _ := e.store.Poster(ctx, e.venue.MovieID)
	if after.Version != before.Version || e.audits(t, "movie.set_poster") != audited {
		t.Fatalf("a refused upload changed the poster or the audit log")
	}
}
