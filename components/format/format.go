// Package format writes domain values as pages show them to a person:
// money, times in a theatre's zone, seat ids, categories and labels.
package format

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/money"
)

// Money writes an amount of currency's minor units as a person reads it,
// by the currency's own decimals and grouping (money.Format): 45000 INR ->
// ₹450, 45050 INR -> ₹450.50, 1500 JPY -> ¥1,500. Money() in
// static/js/app.js writes the same, from the locale and digits the seat
// map carries.
func Money(minor int64, currency string) string { return money.Format(minor, currency) }

// categoryName is a seat category as a person reads it: PREMIUM -> Premium.
func CategoryName(c string) string {
	words := strings.Fields(strings.ReplaceAll(strings.ToLower(c), "_", " "))
	for i, w := range words {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

var zones sync.Map // IANA name -> *time.Location

// zone returns the location named name, UTC when the name is unknown.
func Zone(name string) *time.Location {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		loc = time.UTC
	}
	zones.Store(name, loc)
	return loc
}

// Times as people read them, in one style everywhere (pages, e-mails,
// the admin's pages): a date "Thu 10 Dec 2026", a 24-hour clock "21:00",
// the zone's abbreviation where a zone is needed ("21:00 WET"), each in
// the theatre's zone (tz, an IANA name).
const (
	dateLayout  = "Mon 2 Jan 2006"
	clockLayout = "15:04"
)

// Clock is the time of day at t in tz: "21:00".
func Clock(t time.Time, tz string) string { return t.In(Zone(tz)).Format(clockLayout) }

// Date is the day of t in tz: "Thu 10 Dec 2026".
func Date(t time.Time, tz string) string { return Day(t.In(Zone(tz))) }

// Day is a calendar day (a date without a zone, as a report's period
// has): "Thu 10 Dec 2026".
func Day(d time.Time) string { return d.Format(dateLayout) }

// When is a moment in full: "Thu 10 Dec 2026, 21:00 WET".
func When(t time.Time, tz string) string {
	return Date(t, tz) + ", " + Clock(t, tz) + " " + ZoneAbbrev(t, tz)
}

// zoneAbbrev is the zone's abbreviation at t, e.g. IST.
func ZoneAbbrev(t time.Time, tz string) string {
	name, _ := t.In(Zone(tz)).Zone()
	return name
}

// duration formats a running time in minutes as 2h 22m.
func Duration(minutes int) string {
	h, m := minutes/60, minutes%60
	switch {
	case h == 0:
		return strconv.Itoa(m) + "m"
	case m == 0:
		return strconv.Itoa(h) + "h"
	}
	return strconv.Itoa(h) + "h " + strconv.Itoa(m) + "m"
}

// validDate reports whether d is a YYYY-MM-DD day Postgres can hold.
func ValidDate(d string) bool {
	t, err := time.Parse(time.DateOnly, d)
	return err == nil && t.Year() >= 1 && len(d) == 10
}

// seatOrder returns seat ids as a person reads them: by row, then by
// number (A2 before A10), where the store keeps them in byte order.
func SeatOrder(ids []string) []string {
	out := slices.Clone(ids)
	split := func(id string) (string, int, string) {
		i := strings.IndexFunc(id, unicode.IsDigit)
		if i < 0 {
			return id, -1, ""
		}
		j := i
		for j < len(id) && id[j] >= '0' && id[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(id[i:j])
		return id[:i], n, id[j:]
	}
	slices.SortStableFunc(out, func(a, b string) int {
		ra, na, ta := split(a)
		rb, nb, tb := split(b)
		if c := cmp.Compare(len(ra), len(rb)); c != 0 && ra != rb {
			return c
		}
		if c := strings.Compare(ra, rb); c != 0 {
			return c
		}
		if c := cmp.Compare(na, nb); c != 0 {
			return c
		}
		return strings.Compare(ta, tb)
	})
	return out
}

// SeatRange writes seats as a moviegoer reads them: "F6", "F6 and F7",
// three or more side by side in one row "F6–F8"; seats apart are listed,
// "A1, B2 and C3". The seats are taken in grid order.
func SeatRange(seats []booking.Seat) string {
	seats = slices.Clone(seats)
	slices.SortFunc(seats, func(a, b booking.Seat) int {
		return cmp.Or(cmp.Compare(a.GridRow, b.GridRow), cmp.Compare(a.GridCol, b.GridCol))
	})
	ids := make([]string, len(seats))
	together := true
	for i, s := range seats {
		ids[i] = s.ID
		if i > 0 && (s.GridRow != seats[0].GridRow || s.GridCol != seats[i-1].GridCol+1) {
			together = false
		}
	}
	switch {
	case len(ids) == 0:
		return ""
	case len(ids) >= 3 && together:
		return ids[0] + "–" + ids[len(ids)-1]
	case len(ids) == 1:
		return ids[0]
	}
	return strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
}

// Plural is "1 show", "3 shows".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Count is a count with its thousands grouped: 12,345.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// SeatStatus is a seat's data-status for the viewer.
func SeatStatus(seat booking.Seat) string {
	switch {
	case seat.Mine:
		return "mine"
	case seat.Status == booking.SeatHeld:
		return "held"
	case seat.Status == booking.SeatBooked:
		return "booked"
	case seat.Status == booking.SeatBlocked:
		return "blocked"
	}
	return "available"
}

var statusWords = map[string]string{
	"available": "available", "held": "held by someone else", "booked": "sold", "mine": "held for you",
	"blocked": "not for sale",
}

// SeatLabel is a seat's accessible name: "Row A seat 1, Premium, ₹450, available".
func SeatLabel(seat booking.Seat, status string) string {
	label := "Row " + seat.Row + " seat " + strconv.Itoa(seat.Number) + ", " + CategoryName(seat.Category)
	if seat.Currency != "" { // a drafted layout's seats have no price yet
		label += ", " + Money(seat.PriceMinor, seat.Currency)
	}
	if seat.Accessible {
		label += ", wheelchair accessible"
	}
	if seat.Companion {
		label += ", companion seat beside a wheelchair space"
	}
	return label + ", " + statusWords[status]
}
