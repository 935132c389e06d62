package api

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/compress"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/gzjoin"
)

const (
	defaultShowsLimit = 200
	maxShowsLimit     = 500
)

type showJSON struct {
	ID       int64     `json:"id"`
	Movie    idTitle   `json:"movie"`
	Theatre  theatreJS `json:"theatre"`
	Screen   idName    `json:"screen"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
	Currency string    `json:"currency"`
	Format   string    `json:"format"`   // 2D, 3D, IMAX 2D...
	Language string    `json:"language"` // what the show plays in; "" when its movie names none
	Dubbed   bool      `json:"dubbed"`   // language is not the movie's own
}

type idTitle struct {
	ID    int64  `json:"id"`
	Title string `json:"title"`
}

type idName struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type theatreJS struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	City     string `json:"city"`
	TimeZone string `json:"time_zone"`
}

func showView(sh catalog.Show) showJSON {
	return showJSON{
		ID:       sh.ID,
		Movie:    idTitle{ID: sh.MovieID, Title: sh.MovieTitle},
		Theatre:  theatreJS{ID: sh.TheatreID, Name: sh.TheatreName, City: sh.CityName, TimeZone: sh.TimeZone},
		Screen:   idName{ID: sh.ScreenID, Name: sh.ScreenName},
		StartsAt: sh.StartsAt.UTC(),
		EndsAt:   sh.EndsAt.UTC(),
		Currency: sh.Currency,
		Format:   sh.Format,
		Language: sh.Language,
		Dubbed:   sh.Dubbed,
	}
}

// Shows lists the shows that have not started, soonest first, a page at a
// time: next_cursor, when present, fetches the page after this one.
func (s *Handlers) Shows(c echo.Context) error {
	q := c.QueryParams()
	f := catalog.ShowFilter{Limit: defaultShowsLimit}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxShowsLimit {
			return problem.BadQuery("limit", "Limit must be a whole number from 1 to 500.")
		}
		f.Limit = n
	}
	if v := q.Get("cursor"); v != "" {
		cur, ok := decodeCursor(v)
		if !ok {
			return problem.BadQuery("cursor", "The cursor is not one this server gave out.")
		}
		f.After = &cur
	}
	if v := q.Get("city"); v != "" {
		if !web.CityPattern.MatchString(v) {
			return problem.BadQuery("city", "City must be a city's slug or id.")
		}
		f.City = v
	}
	var err error
	if f.MovieID, err = idParam(q.Get("movie")); err != nil {
		return problem.BadQuery("movie", "Movie must be a movie id.")
	}
	if f.Theatre, err = idParam(q.Get("theatre")); err != nil {
		return problem.BadQuery("theatre", "Theatre must be a theatre id.")
	}
	if v := q.Get("date"); v != "" {
		// Postgres has no year 0, and Go would parse one.
		if d, err := time.Parse(time.DateOnly, v); err != nil || d.Year() < 1 {
			return problem.BadQuery("date", "Date must be a day as YYYY-MM-DD.")
		}
		f.Date = v
	}

	list, err := s.Store.Shows(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := struct {
		Shows      []showJSON `json:"shows"`
		NextCursor string     `json:"next_cursor,omitempty"`
	}{Shows: make([]showJSON, 0, len(list))}
	for _, sh := range list {
		out.Shows = append(out.Shows, showView(sh))
	}
	if len(list) == f.Limit {
		last := list[len(list)-1]
		out.NextCursor = encodeCursor(catalog.ShowCursor{StartsAt: last.StartsAt, ID: last.ID})
	}
	return c.JSON(http.StatusOK, out)
}

// idParam reads an optional positive id; "" is 0 (no filter).
func idParam(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	return web.ParseID(v)
}

// A cursor is opaque to clients: base64url of the last show's start
// (microseconds since the epoch, Postgres's precision) and id.
func encodeCursor(cur catalog.ShowCursor) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(cur.StartsAt.UnixMicro()))
	binary.BigEndian.PutUint64(b[8:], uint64(cur.ID))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func decodeCursor(s string) (catalog.ShowCursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16 {
		return catalog.ShowCursor{}, false
	}
	micros := int64(binary.BigEndian.Uint64(b[:8]))
	id := int64(binary.BigEndian.Uint64(b[8:]))
	// Postgres timestamps span 4713 BC to 294276 AD; stay well inside.
	if id <= 0 || micros < -62135596800000000 || micros > 253402300799999999 {
		return catalog.ShowCursor{}, false
	}
	return catalog.ShowCursor{StartsAt: time.UnixMicro(micros).UTC(), ID: id}, true
}

// Show returns one scheduled show with its price per seat category.
func (s *Handlers) Show(c echo.Context) error {
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return problem.NotFound("show")
	}
	sh, err := s.Store.Show(c.Request().Context(), showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	out := struct {
		showJSON
		Prices map[string]int64 `json:"prices"`
	}{showView(sh), sh.Prices}
	if out.Prices == nil {
		out.Prices = map[string]int64{}
	}
	return c.JSON(http.StatusOK, out)
}

type seatJSON struct {
	ID         string `json:"id"`
	Row        string `json:"row"`
	Number     int    `json:"number"`
	GridRow    int    `json:"grid_row"`
	GridCol    int    `json:"grid_col"`
	Accessible bool   `json:"accessible"`
	Category   string `json:"category"`
	PriceMinor int64  `json:"price_minor"`
	Currency   string `json:"currency"`
	Status     string `json:"status"`
	Mine       bool   `json:"mine,omitempty"`
}

// SeatMap returns every seat of a show with its status now; the caller's
// own held seats say mine. Guests may look. With the live seat map running
// the seats come from the map this instance keeps in memory, with the
// caller's hold laid over it (live.Snapshot.ViewedBy), and the answer of
// everyone who holds none of them is encoded once per snapshot.
func (s *Handlers) SeatMap(c echo.Context) error {
	showID, err := web.ParseID(c.Param("show_id"))
	if err != nil {
		return problem.NotFound("show")
	}
	ctx, viewer := c.Request().Context(), session.UserID(c)
	hub := s.Config.Live
	if hub == nil {
		seats, err := s.Store.SeatMap(ctx, showID, viewer)
		if err != nil {
			return problem.Lookup("show", err)
		}
		return compress.Blob(c, http.StatusOK, echo.MIMEApplicationJSON, seatMapJSON(showID, seats))
	}
	snap, err := hub.Map(ctx, showID)
	if err != nil {
		return problem.Lookup("show", err)
	}
	var hold *booking.Hold
	if viewer != "" {
		h, err := s.Store.ActiveHold(ctx, viewer)
		switch {
		case err == nil:
			hold = &h
		case !errors.Is(err, booking.ErrNotFound):
			return err
		}
	}
	seats, shared := snap.ViewedBy(viewer, hold, nil)
	if !shared {
		return compress.Blob(c, http.StatusOK, echo.MIMEApplicationJSON, seatMapJSON(showID, seats))
	}
	// Encoded and compressed once per snapshot for everyone holding none.
	p, _ := snap.Memo("api-seats", func() (any, error) { return gzjoin.NewPiece(string(seatMapJSON(showID, seats))), nil })
	return compress.SharedBlob(c, http.StatusOK, echo.MIMEApplicationJSON, p.(*gzjoin.Piece))
}

// seatMapJSON is the seat map's answer: {"show_id": ..., "seats": [...]}.
func seatMapJSON(showID int64, seats []booking.Seat) []byte {
	out := struct {
		ShowID int64      `json:"show_id"`
		Seats  []seatJSON `json:"seats"`
	}{ShowID: showID, Seats: make([]seatJSON, 0, len(seats))}
	for _, st := range seats {
		out.Seats = append(out.Seats, seatJSON{
			ID: st.ID, Row: st.Row, Number: st.Number, GridRow: st.GridRow, GridCol: st.GridCol,
			Accessible: st.Accessible, Category: st.Category, PriceMinor: st.PriceMinor,
			Currency: st.Currency, Status: string(st.Status), Mine: st.Mine,
		})
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic("api: encode a seat map: " + err.Error()) // strings, numbers and bools only
	}
	return b
}
