package booking_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// FuzzHoldRequest: a hold request's seats (one per line) and its
// Idempotency-Key are refused with the documented errors, or accepted as
// the same seats, sorted, each an id of 1 to 16 letters, digits or dashes,
// at most max of them, with a fingerprint that ignores their order.
func FuzzHoldRequest(f *testing.F) {
	f.Add("A1\nA2", "key-1", uint8(10))
	f.Add("B2\nA10\nA1", "k", uint8(2))
	f.Fuzz(func(t *testing.T, lines, key string, max uint8) {
		var seats []string
		if lines != "" {
			seats = strings.Split(lines, "\n")
		}
		r := booking.HoldRequest{UserID: "u", ShowID: 1, Seats: seats, Key: key}
		got, err := r.Normalize(int(max))
		var (
			invalid *booking.InvalidSeatError
			dup     *booking.DuplicateSeatsError
			tooMany *booking.TooManySeatsError
		)
		switch {
		case err == nil:
			if len(got) == 0 || len(got) > int(max) || len(got) != len(seats) {
				t.Fatalf("Normalize(%q, %d) = %q", seats, max, got)
			}
			for i, s := range got {
				if !seatID(s) || i > 0 && got[i-1] >= s {
					t.Fatalf("Normalize(%q) = %q: not unique valid ids in order", seats, got)
				}
			}
			if sorted := slices.Sorted(slices.Values(seats)); !slices.Equal(sorted, got) {
				t.Fatalf("Normalize(%q) = %q: not the seats asked for", seats, got)
			}
			reversed := slices.Clone(seats)
			slices.Reverse(reversed)
			again, err := booking.HoldRequest{UserID: "u", ShowID: 1, Seats: reversed, Key: key}.Normalize(int(max))
			if err != nil || r.Fingerprint(got) != r.Fingerprint(again) {
				t.Fatalf("the seats in another order are another request: %q, %v", again, err)
			}
		case errors.Is(err, booking.ErrNoSeats):
			if len(seats) != 0 {
				t.Fatalf("ErrNoSeats for %q", seats)
			}
		case errors.As(err, &invalid):
			if seatID(invalid.Seat) || !slices.Contains(seats, invalid.Seat) {
				t.Fatalf("%v for %q", err, seats)
			}
		case errors.As(err, &dup):
			for _, s := range dup.Seats {
				n := 0
				for _, asked := range seats {
					if asked == s {
						n++
					}
				}
				if n < 2 {
					t.Fatalf("%v: %q is not in %q twice", err, s, seats)
				}
			}
		case errors.As(err, &tooMany):
			if tooMany.Asked != len(seats) || tooMany.Max != int(max) || tooMany.Asked <= tooMany.Max {
				t.Fatalf("%v for %d seats, at most %d", err, len(seats), max)
			}
		default:
			t.Fatalf("Normalize(%q) = %v: not a documented error", seats, err)
		}

		printable := key != "" && len(key) <= 255
		for i := 0; i < len(key); i++ {
			printable = printable && key[i] >= 0x20 && key[i] <= 0x7e
		}
		if booking.ValidKey(key) != printable {
			t.Fatalf("ValidKey(%q) = %v", key, booking.ValidKey(key))
		}
	})
}

// seatID is the seat id rule, written out.
func seatID(s string) bool {
	if s == "" || len(s) > 16 {
		return false
	}
	for _, c := range []byte(s) {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
