package web_test

import (
	"errors"
	"strconv"
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

// FuzzParseID: an id is refused as booking.ErrNotFound, or it is positive
// and its one spelling; every positive int64 spelt out parses to itself.
func FuzzParseID(f *testing.F) {
	f.Add("42", int64(42))
	f.Fuzz(func(t *testing.T, s string, n int64) {
		id, err := web.ParseID(s)
		switch {
		case err != nil && !errors.Is(err, booking.ErrNotFound):
			t.Fatalf("ParseID(%q) = %v: not ErrNotFound", s, err)
		case err == nil && (id <= 0 || strconv.FormatInt(id, 10) != s):
			t.Fatalf("ParseID(%q) = %d: not its one spelling", s, id)
		}
		if n > 0 {
			if id, err := web.ParseID(strconv.FormatInt(n, 10)); err != nil || id != n {
				t.Fatalf("ParseID(%d) = %d, %v", n, id, err)
			}
		}
	})
}
