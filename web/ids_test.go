package web_test

import (
	"errors"
	"testing"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web"
)

func TestParseID(t *testing.T) {
	for s, want := range map[string]int64{"1": 1, "7": 7, "10": 10, "9223372036854775807": 1<<63 - 1} {
		if got, err := web.ParseID(s); err != nil || got != want {
			t.Errorf("ParseID(%q) = %d, %v, want %d", s, got, err, want)
		}
	}
	// One id, one spelling: anything else names nothing.
	for _, s := range []string{"", "0", "-1", "+7", "007", "07", " 7", "7 ", "7a", "0x10", "1e3", "1_000",
		"9223372036854775808", "99999999999999999999", "\uff17", "7\x00", "\xff"} {
		if got, err := web.ParseID(s); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("ParseID(%q) = %d, %v, want ErrNotFound", s, got, err)
		}
	}
}
