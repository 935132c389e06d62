package web

import (
	"strconv"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// ParseID reads the id of a show, movie, theatre or booking from a path
// segment, query or form value: a positive decimal number in its one
// spelling, without a sign or leading zeros, that fits an int64 (so that
// /shows/7 has no second address such as /shows/007 or /shows/+7).
// Anything else names nothing, so it is booking.ErrNotFound: the answer
// for an id that does not exist.
func ParseID(s string) (int64, error) {
	if s == "" || len(s) > 19 || s[0] < '1' || s[0] > '9' {
		return 0, booking.ErrNotFound
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, booking.ErrNotFound
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, booking.ErrNotFound // past int64
	}
	return id, nil
}
