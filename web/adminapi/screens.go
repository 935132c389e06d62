package adminapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

// layoutError answers a bad seat with the seat it is about; other errors
// pass through to the error table.
func layoutError(err error) error {
	var bad *admin.SeatError
	if errors.As(err, &bad) {
		return problem.New(http.StatusUnprocessableEntity, "invalid_seats", problem.Sentence(bad.Err.Message)).
			With("field", "seats").With("seat", bad.Seat).With("index", bad.Index)
	}
	return err
}

// errBadIdeal is an "ideal" that is neither null nor a grid cell.
var errBadIdeal = problem.New(http.StatusBadRequest, "invalid_field_type",
	`Field "ideal" must be null or an object {"grid_row": n, "grid_col": n}.`).With("field", "ideal")

// idealChange reads a layout's optional "ideal", the screen's ideal
// viewing point: absent (raw nil) leaves it as it is, null makes it the
// default, a cell sets it.
func idealChange(raw json.RawMessage) (catalog.IdealChange, error) {
	if raw == nil {
		return catalog.IdealChange{}, nil
	}
	var at *catalog.GridPoint
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&at); err != nil {
		return catalog.IdealChange{}, errBadIdeal
	}
	return catalog.IdealChange{Set: true, At: at}, nil
}

// CreateScreen adds a screen with its seat layout, and its ideal viewing
// point when it sends one, to a theatre.
func (h *Handlers) CreateScreen(c echo.Context) error {
	theatreID, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	var req struct {
		Name  string             `json:"name"`
		Seats []catalog.SeatSpec `json:"seats"`
		Ideal json.RawMessage    `json:"ideal"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	ideal, err := idealChange(req.Ideal)
	if err != nil {
		return err
	}
	id, err := h.Admin.CreateScreen(c.Request().Context(), actor(c), theatreID, req.Name, req.Seats, ideal.At)
	if err != nil {
		return problem.Lookup("theatre", layoutError(err))
	}
	return c.JSON(http.StatusCreated, map[string]any{"screen_id": id, "seats": len(req.Seats)})
}

// Screen answers a screen with its layout and its seat categories.
func (h *Handlers) Screen(c echo.Context) error {
	screenID, err := pathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	sc, err := h.Admin.Screen(c.Request().Context(), actor(c), screenID)
	if err != nil {
		return problem.Lookup("screen", err)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"screen_id": sc.ID, "theatre_id": sc.TheatreID, "name": sc.Name,
		"seats": sc.Seats, "categories": problem.NonNil(sc.Categories()), "ideal": sc.Ideal,
		"retired": sc.RetiredAt != nil, "retired_at": sc.RetiredAt,
	})
}

// UpdateScreen renames a screen, or retires it or puts it back in use:
// PATCH /api/v1/admin/screens/{screen_id} {"name"?,"retired"?}.
func (h *Handlers) UpdateScreen(c echo.Context) error {
	screenID, err := pathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	var req struct {
		Name    *string `json:"name"`
		Retired *bool   `json:"retired"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	up, err := h.Admin.UpdateScreen(c.Request().Context(), actor(c), screenID, catalog.ScreenPatch{Name: req.Name, Retired: req.Retired})
	if err != nil {
		return problem.Lookup("screen", err)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"screen_id": screenID, "theatre_id": up.After.TheatreID, "name": up.After.Name,
		"retired": up.After.RetiredAt != nil, "retired_at": up.After.RetiredAt,
	})
}

// ReplaceLayout replaces a screen's seat layout, and its upcoming shows',
// and its ideal viewing point when it sends "ideal".
func (h *Handlers) ReplaceLayout(c echo.Context) error {
	screenID, err := pathID(c, "screen_id")
	if err != nil {
		return problem.NotFound("screen")
	}
	var req struct {
		Seats      []catalog.SeatSpec          `json:"seats"`
		Ideal      json.RawMessage             `json:"ideal"`
		Prices     map[string]int64            `json:"prices"`
		ShowPrices map[string]map[string]int64 `json:"show_prices"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	ideal, err := idealChange(req.Ideal)
	if err != nil {
		return err
	}
	prices := catalog.NewPrices{Default: req.Prices, Shows: map[int64]map[string]int64{}}
	for key, byCategory := range req.ShowPrices {
		id, err := strconv.ParseInt(key, 10, 64)
		if err != nil || id <= 0 {
			return problem.New(http.StatusUnprocessableEntity, "invalid_show_prices",
				fmt.Sprintf("%q is not a show id: \"show_prices\" maps show ids to {category: price}.", key)).With("field", "show_prices")
		}
		prices.Shows[id] = byCategory
	}
	ch, err := h.Admin.ReplaceLayoutPriced(c.Request().Context(), actor(c), screenID, req.Seats, ideal, prices)
	if err != nil {
		return problem.Lookup("screen", layoutError(err))
	}
	return c.JSON(http.StatusOK, layoutChangeJSON(screenID, ch))
}

func layoutChangeJSON(screenID int64, ch catalog.LayoutChange) map[string]any {
	return map[string]any{
		"screen_id": screenID, "seats": ch.After,
		"added": problem.NonNil(ch.Added), "removed": problem.NonNil(ch.Removed), "moved": problem.NonNil(ch.Moved),
		"recategorized": problem.NonNil(ch.Recategorized), "relabelled": problem.NonNil(ch.Relabelled), "ideal": ch.Ideal,
		"prices_added": nonNilPrices(ch.Priced),
	}
}

func nonNilPrices(p []catalog.PriceAdded) []catalog.PriceAdded {
	if p == nil {
		return []catalog.PriceAdded{}
	}
	return p
}

// CreateMovie adds a movie to the catalogue.
func (h *Handlers) CreateMovie(c echo.Context) error {
	var req struct {
		Title           string   `json:"title"`
		DurationMinutes int      `json:"duration_minutes"`
		Rating          string   `json:"rating"`
		Language        string   `json:"language"`
		Synopsis        string   `json:"synopsis"`
		Genres          []string `json:"genres"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	m := catalog.Movie{
		Title: req.Title, DurationMinutes: req.DurationMinutes, Rating: req.Rating,
		Language: req.Language, Synopsis: req.Synopsis, Genres: req.Genres,
	}
	id, err := h.Admin.CreateMovie(c.Request().Context(), actor(c), m)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{
		"movie_id": id, "title": m.Title, "duration_minutes": m.DurationMinutes, "rating": m.Rating,
		"language": m.Language, "synopsis": m.Synopsis, "genres": problem.NonNil(m.Genres),
	})
}

var (
	errPosterTooLarge = problem.New(http.StatusRequestEntityTooLarge, "poster_too_large",
		"A poster is at most 2 MiB. Send a smaller image.")
	errUnsupportedImage = problem.New(http.StatusUnsupportedMediaType, "unsupported_image",
		"A poster must be a PNG, JPEG or WebP image.")
	errInvalidImage = problem.New(http.StatusUnprocessableEntity, "invalid_image",
		"This image is damaged or too large to read. Export it again and send it once more.")
)

// UploadPoster sets a movie's poster from the image bytes of the body
// (whatever its Content-Type says: the bytes decide), with an optional
// ?alt= text alternative.
func (h *Handlers) UploadPoster(c echo.Context) error {
	movieID, err := pathID(c, "movie_id")
	if err != nil {
		return problem.NotFound("movie")
	}
	// The global body limit skips this route (web.PosterRoute); this is
	// its own.
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, admin.MaxPosterBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return errPosterTooLarge
	case err != nil:
		return problem.New(http.StatusBadRequest, "unreadable_body", "The request body could not be read.")
	case len(body) == 0:
		return problem.New(http.StatusBadRequest, "body_required", "Send the poster image as the request body.")
	}
	info, err := h.Admin.SetPoster(c.Request().Context(), actor(c), movieID, body, c.QueryParam("alt"))
	var size *admin.PosterSizeError
	switch {
	case errors.As(err, &size):
		return problem.New(http.StatusUnprocessableEntity, "invalid_image", size.Message).
			With("width", size.Width).With("height", size.Height)
	case errors.Is(err, admin.ErrPosterTooLarge):
		return errPosterTooLarge
	case errors.Is(err, admin.ErrUnsupportedImage):
		return errUnsupportedImage
	case errors.Is(err, admin.ErrInvalidImage):
		return errInvalidImage
	case err != nil:
		return problem.Lookup("movie", err)
	}
	return c.JSON(http.StatusOK, map[string]any{
		"movie_id": movieID, "width": info.Width, "height": info.Height, "version": info.Version, "alt": info.Alt,
	})
}

// movieJSON is a movie of the catalogue as the admin API answers it.
func movieJSON(m catalog.Movie) map[string]any {
	return map[string]any{
		"movie_id": m.ID, "title": m.Title, "duration_minutes": m.DurationMinutes, "rating": m.Rating,
		"language": m.Language, "synopsis": m.Synopsis, "genres": problem.NonNil(m.Genres),
	}
}

// UpdateMovie changes the fields sent of a movie:
// PATCH /api/v1/admin/movies/{movie_id}, the body of POST /movies with any
// fields left out. A new running time moves the end of the movie's upcoming
// shows; the answer names them.
func (h *Handlers) UpdateMovie(c echo.Context) error {
	movieID, err := pathID(c, "movie_id")
	if err != nil {
		return problem.NotFound("movie")
	}
	var req struct {
		Title           *string   `json:"title"`
		DurationMinutes *int      `json:"duration_minutes"`
		Rating          *string   `json:"rating"`
		Language        *string   `json:"language"`
		Synopsis        *string   `json:"synopsis"`
		Genres          *[]string `json:"genres"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	up, err := h.Admin.UpdateMovie(c.Request().Context(), actor(c), movieID, catalog.MoviePatch{
		Title: req.Title, DurationMinutes: req.DurationMinutes, Rating: req.Rating,
		Language: req.Language, Synopsis: req.Synopsis, Genres: req.Genres,
	})
	if err != nil {
		return problem.Lookup("movie", err)
	}
	out := movieJSON(up.Movie)
	moved := up.ShowsMoved
	if moved == nil {
		moved = []int64{}
	}
	out["shows_moved"] = moved
	out["ends_moved_minutes"] = int(up.EndsMovedBy / time.Minute)
	return c.JSON(http.StatusOK, out)
}
