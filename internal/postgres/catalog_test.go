package postgres_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

func TestPosters(t *testing.T) {
	w := newWorld(t)
	s := w.store
	version := func(data []byte) string {
		sum := sha256.Sum256(data)
		return hex.EncodeToString(sum[:8])
	}
	first := catalog.Poster{PosterInfo: catalog.PosterInfo{Width: 2, Height: 3, Alt: "A robot reading"},
		ContentType: "image/png", Data: []byte("\x89PNG first")}

	t.Run("a movie has no poster until one is set", func(t *testing.T) {
		m, err := s.Movie(ctx, w.venue.MovieID)
		if err != nil || m.Poster != nil {
			t.Fatalf("movie = %+v, %v", m, err)
		}
		if _, err := s.Poster(ctx, w.venue.MovieID); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("poster: %v, want not found", err)
		}
	})
	t.Run("a poster's version is its content hash", func(t *testing.T) {
		info, err := s.SetPoster(ctx, w.venue.MovieID, first)
		if err != nil || info.Version != version(first.Data) || info.Width != 2 || info.Height != 3 {
			t.Fatalf("set poster = %+v, %v; want version %s", info, err, version(first.Data))
		}
		p, err := s.Poster(ctx, w.venue.MovieID)
		if err != nil || !bytes.Equal(p.Data, first.Data) || p.ContentType != "image/png" || p.PosterInfo != info {
			t.Fatalf("poster = %+v, %v", p, err)
		}
		m, err := s.Movie(ctx, w.venue.MovieID)
		if err != nil || m.Poster == nil || *m.Poster != info {
			t.Fatalf("movie's poster = %+v, %v", m.Poster, err)
		}
		movies, err := s.MoviesShowing(ctx, catalog.ShowtimeFilter{CityID: w.venue.CityID})
		if err != nil || len(movies) != 1 || movies[0].Poster == nil || *movies[0].Poster != info {
			t.Fatalf("listing = %+v, %v", movies, err)
		}
	})
	t.Run("a new upload replaces the poster and its version", func(t *testing.T) {
		second := first
		second.ContentType, second.Data, second.Alt = "image/webp", []byte("RIFF second"), "A robot asleep"
		info, err := s.SetPoster(ctx, w.venue.MovieID, second)
		if err != nil || info.Version != version(second.Data) {
			t.Fatalf("replace = %+v, %v", info, err)
		}
		p, err := s.Poster(ctx, w.venue.MovieID)
		if err != nil || p.ContentType != "image/webp" || p.Alt != "A robot asleep" || p.Version == version(first.Data) {
			t.Fatalf("poster = %+v, %v", p.PosterInfo, err)
		}
	})
	t.Run("what is not a poster is refused", func(t *testing.T) {
		bad := first
		bad.ContentType = "image/svg+xml"
		if _, err := s.SetPoster(ctx, w.venue.MovieID, bad); err == nil {
			t.Error("an SVG poster was stored")
		}
		bad = first
		bad.Alt = ""
		if _, err := s.SetPoster(ctx, w.venue.MovieID, bad); err == nil {
			t.Error("a poster without a text alternative was stored")
		}
		if _, err := s.SetPoster(ctx, 987654, first); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("poster of an unknown movie: %v, want not found", err)
		}
	})
}
