package web

import (
	"strconv"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// ParseID reads the id of a show, movie, theatre or booking from a path
// segment, query or form value. Anything but a positive decimal number
// names nothing, so it is booking.ErrNotFound: the answer for an id that
// does not exist.
func ParseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, booking.ErrNotFound
	}
	return id, nil
}
