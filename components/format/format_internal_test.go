package format

import (
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
)

func TestSeatOrder(t *testing.T) {
	got := SeatOrder([]string{"C10", "C9", "D11", "AA1", "B2", "A10", "A2", "X"})
	want := []string{"A2", "A10", "B2", "C9", "C10", "D11", "X", "AA1"}
	if !slices.Equal(got, want) {
		t.Fatalf("seatOrder = %v, want %v", got, want)
	}
}

func TestSeatRange(t *testing.T) {
	seat := func(id string, row, col int) booking.Seat { return booking.Seat{ID: id, GridRow: row, GridCol: col} }
	for _, tc := range []struct {
		seats []booking.Seat
		want  string
	}{
		{nil, ""},
		{[]booking.Seat{seat("F6", 5, 6)}, "F6"},
		{[]booking.Seat{seat("F7", 5, 7), seat("F6", 5, 6)}, "F6 and F7"},
		{[]booking.Seat{seat("F8", 5, 8), seat("F6", 5, 6), seat("F7", 5, 7)}, "F6–F8"},
		// Numbered from the right: the seats as they sit, left to right.
		{[]booking.Seat{seat("F3", 5, 6), seat("F2", 5, 7), seat("F1", 5, 8)}, "F3–F1"},
		// Across an aisle, or in two rows: listed.
		{[]booking.Seat{seat("B3", 1, 2), seat("B4", 1, 4), seat("B5", 1, 5)}, "B3, B4 and B5"},
		{[]booking.Seat{seat("A1", 0, 0), seat("B1", 1, 0), seat("C1", 2, 0)}, "A1, B1 and C1"},
	} {
		if got := SeatRange(tc.seats); got != tc.want {
			t.Errorf("SeatRange(%v) = %q, want %q", tc.seats, got, tc.want)
		}
	}
}

func TestMoney(t *testing.T) {
	for minor, want := range map[int64]string{0: "₹0", 45000: "₹450", 45050: "₹450.50", 45005: "₹450.05", 12345600: "₹1,23,456", -2500: "-₹25"} {
		if got := Money(minor, "INR"); got != want {
			t.Errorf("Money(%d) = %q, want %q", minor, got, want)
		}
	}
	if got := Money(1999, "USD"); got != "$19.99" {
		t.Errorf("USD: %q", got)
	}
	if got := Money(123456789, "USD"); got != "$1,234,567.89" {
		t.Errorf("USD is grouped in thousands, not lakhs: %q", got)
	}
	if got := Money(123456789, "INR"); got != "₹12,34,567.89" {
		t.Errorf("INR is grouped in lakhs: %q", got)
	}
	if got := Money(1500, "JPY"); got != "¥1,500" {
		t.Errorf("JPY has no decimals: %q", got)
	}
	if got := Money(1500, "KWD"); got != "KWD\u00a01.500" {
		t.Errorf("KWD has three decimals: %q", got)
	}
	if got := Money(500, "CHF"); got != "CHF\u00a05" {
		t.Errorf("CHF: %q", got)
	}
}

// TestTimesInOneStyle: every page and e-mail writes a time one way: the
// date as "Thu 10 Dec 2026", a 24-hour clock, and the zone's abbreviation
// where a zone is needed, all in the theatre's zone.
func TestTimesInOneStyle(t *testing.T) {
	at := time.Date(2026, 12, 10, 21, 0, 0, 0, time.UTC) // 21:00 in Lisbon (WET), 02:30 the next day in Kolkata
	for _, tc := range []struct {
		tz, date, clock, when string
	}{
		{"Europe/Lisbon", "Thu 10 Dec 2026", "21:00", "Thu 10 Dec 2026, 21:00 WET"},
		{"Asia/Kolkata", "Fri 11 Dec 2026", "02:30", "Fri 11 Dec 2026, 02:30 IST"},
		{"UTC", "Thu 10 Dec 2026", "21:00", "Thu 10 Dec 2026, 21:00 UTC"},
	} {
		if got := Date(at, tc.tz); got != tc.date {
			t.Errorf("Date in %s = %q, want %q", tc.tz, got, tc.date)
		}
		if got := Clock(at, tc.tz); got != tc.clock {
			t.Errorf("Clock in %s = %q, want %q", tc.tz, got, tc.clock)
		}
		if got := When(at, tc.tz); got != tc.when {
			t.Errorf("When in %s = %q, want %q", tc.tz, got, tc.when)
		}
	}
	if got := Day(time.Date(2027, 3, 26, 0, 0, 0, 0, time.UTC)); got != "Fri 26 Mar 2027" {
		t.Errorf("Day = %q", got)
	}
}
