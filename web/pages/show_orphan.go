package pages

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/components/format"
	"github.com/marquee-tickets/marquee/internal/booking"
)

// orphanRefused answers a hold the theatre's orphan rule refused (409): the
// seats picked stay picked on the map, and above it the page says which
// seat they would leave empty on its own and offers the suggestion, held
// in one click.
func (s *Handlers) orphanRefused(c echo.Context, st showState, picked []string, e *booking.OrphanSeatError) error {
	v := s.bookingView(c, st, selection{seats: picked})
	if v.Mode == "select" {
		v.Orphan = orphanOffer(st, e)
	}
	return s.renderBooking(c, http.StatusConflict, st, v)
}

// orphanOffer says, in a moviegoer's words, what e refused and offers its
// suggestion: "That would leave F5 empty on its own. Take F6–F8 instead?"
func orphanOffer(st showState, e *booking.OrphanSeatError) *components.OrphanOffer {
	seats := func(ids []string) []booking.Seat {
		var out []booking.Seat
		for _, seat := range st.seats {
			if slices.Contains(ids, seat.ID) {
				out = append(out, seat)
			}
		}
		return out
	}
	alone, instead := format.SeatRange(seats(e.Seats)), format.SeatRange(seats(e.Suggestion))
	problem := "That would leave " + alone + " empty on its own."
	if len(e.Seats) > 1 {
		problem = "That would leave " + alone + " empty, each on its own."
	}
	return &components.OrphanOffer{
		Problem: problem, Question: "Take " + instead + " instead?", Take: "Take " + instead,
		Seats:  e.Suggestion,
		Action: "/shows/" + strconv.FormatInt(st.show.ID, 10) + "/hold",
		Key:    newKey(),
	}
}
