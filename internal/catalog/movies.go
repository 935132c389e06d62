package catalog

import "time"

// Movie is a film that shows are scheduled for.
type Movie struct {
	ID              int64
	Title           string
	DurationMinutes int
	Rating          string
	Synopsis        string
	Language        string      // the language it was made in; a show may be dubbed
	Genres          []string    // e.g. Drama, Thriller
	Poster          *PosterInfo // nil: no poster yet
}

// Poster content types: what an upload may be.
var PosterTypes = []string{"image/png", "image/jpeg", "image/webp"}

// PosterInfo is what a page needs to show a movie's poster: the version
// (part of its content hash) that makes its URL change with its content,
// its size, so the page keeps the room for it, and its text alternative.
type PosterInfo struct {
	Version string
	Width   int
	Height  int
	Alt     string
}

// Poster is a movie's poster image with its bytes.
type Poster struct {
	PosterInfo
	ContentType string // one of PosterTypes
	Data        []byte
}

// MovieListing is a movie with upcoming shows, as a city page lists it.
type MovieListing struct {
	Movie
	Shows     int       // upcoming shows the filter selects
	Theatres  int       // theatres showing it
	FirstShow time.Time // the soonest of them
	Languages []string  // the languages they play in, by name
	Formats   []string  // their formats, in the order of Formats
}

// MoviePatch is a change to a movie of the catalogue: each nil field stays
// as it is. Its poster has a change of its own.
type MoviePatch struct {
	Title           *string
	DurationMinutes *int
	Rating          *string
	Synopsis        *string
	Language        *string
	Genres          *[]string
}

// Empty reports whether p changes nothing.
func (p MoviePatch) Empty() bool { return p == MoviePatch{} }

// Apply returns m changed by p.
func (p MoviePatch) Apply(m Movie) Movie {
	if p.Title != nil {
		m.Title = *p.Title
	}
	if p.DurationMinutes != nil {
		m.DurationMinutes = *p.DurationMinutes
	}
	if p.Rating != nil {
		m.Rating = *p.Rating
	}
	if p.Synopsis != nil {
		m.Synopsis = *p.Synopsis
	}
	if p.Language != nil {
		m.Language = *p.Language
	}
	if p.Genres != nil {
		m.Genres = *p.Genres
	}
	return m
}

// MovieUpdate is what a change to a movie did: the movie as it is now,
// and, when its running time changed, the upcoming shows whose end moved
// by the difference.
type MovieUpdate struct {
	Movie Movie
	// Before is the movie as it was.
	Before Movie
	// ShowsMoved are the scheduled shows of the movie that had not started
	// and now end EndsMovedBy later (earlier, when negative).
	ShowsMoved  []int64
	EndsMovedBy time.Duration
}
