package adminapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/problem"
)

// termsJSON are the fields every request that schedules shows shares.
type termsJSON struct {
	ScreenID int64            `json:"screen_id"`
	MovieID  int64            `json:"movie_id"`
	Currency string           `json:"currency"`
	Prices   map[string]int64 `json:"prices"`
	Format   string           `json:"format"`
	Language string           `json:"language"`
}

func (t termsJSON) terms() admin.ShowTerms {
	return admin.ShowTerms{Currency: t.Currency, Prices: t.Prices, Format: t.Format, Language: t.Language}
}

type scheduledJSON struct {
	ShowID   int64     `json:"show_id"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
}

func scheduledView(s admin.ScheduledShow) scheduledJSON {
	return scheduledJSON{ShowID: s.ID, StartsAt: s.StartsAt.UTC(), EndsAt: s.EndsAt.UTC()}
}

// CreateShow schedules one show: 201 with its id, start and end.
func (h *Handlers) CreateShow(c echo.Context) error {
	var req struct {
		termsJSON
		StartsAt string `json:"starts_at"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	startsAt, err := parseStart(req.StartsAt)
	if err != nil {
		return err
	}
	show, err := h.Admin.CreateShow(c.Request().Context(), actor(c), admin.NewShow{
		ScreenID: req.ScreenID, MovieID: req.MovieID, StartsAt: startsAt, ShowTerms: req.terms(),
	})
	if err != nil {
		return schedulingError(err)
	}
	return c.JSON(http.StatusCreated, scheduledView(show))
}

// maxOffset is the largest UTC offset any place keeps (Kiribati's +14:00;
// the most negative is -12:00). time.Parse takes any up to ±99:59, and a
// start at +24:00 is a typo, not a time zone.
const maxOffset = 14 * time.Hour

// parseStart reads a show's start, RFC 3339 with an offset no place on
// Earth is beyond.
func parseStart(value string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, &catalog.FieldError{Field: "starts_at",
			Message: "give the start in RFC 3339 with an offset, such as 2027-03-26T18:30:00+05:30"}
	}
	if _, offset := t.Zone(); time.Duration(offset)*time.Second > maxOffset || time.Duration(offset)*time.Second < -maxOffset {
		return time.Time{}, &catalog.FieldError{Field: "starts_at",
			Message: "the offset from UTC of the start is at most 14 hours either way (-14:00 to +14:00), such as +05:30"}
	}
	return t, nil
}

// ScheduleShows schedules every one of times on every day from..to, all or
// nothing: 201 with the shows.
func (h *Handlers) ScheduleShows(c echo.Context) error {
	var req struct {
		termsJSON
		From  string   `json:"from"`
		To    string   `json:"to"`
		Times []string `json:"times"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	shows, err := h.Admin.ScheduleShows(c.Request().Context(), actor(c), admin.ShowSeries{
		ScreenID: req.ScreenID, MovieID: req.MovieID, From: req.From, To: req.To, Times: req.Times,
		ShowTerms: req.terms(),
	})
	if err != nil {
		return schedulingError(err)
	}
	out := make([]scheduledJSON, len(shows))
	for i, s := range shows {
		out[i] = scheduledView(s)
	}
	return c.JSON(http.StatusCreated, map[string]any{"shows": out})
}

// schedulingError names an unknown screen, and adds to show_overlap which
// new show was refused and when the one in its way starts.
func schedulingError(err error) error {
	var overlap *catalog.ScheduleOverlapError
	if !errors.As(err, &overlap) {
		return problem.Lookup("screen", err)
	}
	ae, _ := problem.For(err)
	ae = ae.With("starts_at", overlap.StartsAt.UTC()).With("conflicting_starts_at", overlap.ConflictingStartsAt.UTC())
	if overlap.ConflictingShowID == 0 {
		// In the way is another show of the same request, which has no id.
		ae = ae.With("conflicting_show_id", nil)
	}
	return ae
}

type theatreShowJSON struct {
	ShowID     int64            `json:"show_id"`
	MovieID    int64            `json:"movie_id"`
	MovieTitle string           `json:"movie_title"`
	ScreenID   int64            `json:"screen_id"`
	Screen     string           `json:"screen"`
	StartsAt   time.Time        `json:"starts_at"`
	EndsAt     time.Time        `json:"ends_at"`
	Status     string           `json:"status"`
	Format     string           `json:"format"`
	Language   string           `json:"language"`
	Currency   string           `json:"currency"`
	Prices     map[string]int64 `json:"prices"`
	Counts     countsJSON       `json:"counts"`
}

// TheatreShows lists a theatre's shows, with from and to (YYYY-MM-DD, the
// theatre's days, inclusive; by default those that have not ended).
func (h *Handlers) TheatreShows(c echo.Context) error {
	id, err := pathID(c, "theatre_id")
	if err != nil {
		return problem.NotFound("theatre")
	}
	from, err := optionalDate(c, "from")
	if err != nil {
		return err
	}
	to, err := optionalDate(c, "to")
	if err != nil {
		return err
	}
	shows, err := h.Admin.TheatreShows(c.Request().Context(), actor(c), id, from, to)
	if err != nil {
		return queryError(problem.Lookup("theatre", err))
	}
	out := make([]theatreShowJSON, len(shows))
	for i, s := range shows {
		out[i] = theatreShowView(s)
	}
	return c.JSON(http.StatusOK, map[string]any{"shows": out})
}

func theatreShowView(s catalog.TheatreShow) theatreShowJSON {
	return theatreShowJSON{
		ShowID: s.ID, MovieID: s.MovieID, MovieTitle: s.MovieTitle, ScreenID: s.ScreenID, Screen: s.ScreenName,
		StartsAt: s.StartsAt.UTC(), EndsAt: s.EndsAt.UTC(), Status: s.Status, Format: s.Format,
		Language: s.Language, Currency: s.Currency, Prices: s.Prices, Counts: countsJSON(s.Seats),
	}
}

// RescheduleShow moves a show to another start on its own screen: 200 with
// the show as the theatre's schedule lists it, how many bookings moved with
// it and how many moviegoers are e-mailed the new time.
func (h *Handlers) RescheduleShow(c echo.Context) error {
	id, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	var req struct {
		StartsAt string `json:"starts_at"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	startsAt, err := parseStart(req.StartsAt)
	if err != nil {
		return err
	}
	moved, err := h.Admin.RescheduleShow(c.Request().Context(), actor(c), id, startsAt)
	var overlap *catalog.ScheduleOverlapError
	switch {
	case errors.As(err, &overlap):
		return schedulingError(err)
	case err != nil:
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, struct {
		theatreShowJSON
		BookingsMoved  int `json:"bookings_moved"`
		MoviegoersTold int `json:"moviegoers_told"`
	}{theatreShowView(moved.Show), moved.BookingsMoved, moved.MoviegoersTold})
}

// optionalDate reads query parameter name as a date, zero when absent.
func optionalDate(c echo.Context, name string) (time.Time, error) {
	v := c.QueryParam(name)
	if v == "" {
		return time.Time{}, nil
	}
	d, err := admin.ParseDate(name, v)
	return d, queryError(err)
}

// queryError answers a bad query parameter with 400, as every query's.
func queryError(err error) error {
	var bad *catalog.FieldError
	if errors.As(err, &bad) {
		return problem.BadQuery(bad.Field, problem.Sentence(bad.Message))
	}
	return err
}

// UpdatePrices replaces a show's prices: 200 with them.
func (h *Handlers) UpdatePrices(c echo.Context) error {
	id, err := pathID(c, "show_id")
	if err != nil {
		return problem.NotFound("show")
	}
	var req struct {
		Prices map[string]int64 `json:"prices"`
	}
	if err := web.DecodeJSON(c, &req, true); err != nil {
		return err
	}
	prices, err := h.Admin.SetPrices(c.Request().Context(), actor(c), id, req.Prices)
	if err != nil {
		return problem.Lookup("show", err)
	}
	return c.JSON(http.StatusOK, map[string]any{"show_id": id, "prices": prices})
}
