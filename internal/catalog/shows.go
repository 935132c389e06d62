package catalog

import (
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// Formats are the projection formats a show can be in.
var Formats = []string{"2D", "3D", "IMAX 2D", "IMAX 3D", "4DX", "4DX 3D", "ScreenX"}

// DefaultFormat is the format of a show that names none.
const DefaultFormat = "2D"

// TimeOfDay is a part of the day showtimes can be narrowed to, by the
// theatre's wall clock: From <= hour < To.
type TimeOfDay struct {
	Slug     string // as in a URL: morning
	Name     string // Morning
	From, To int    // hours
}

// TimesOfDay are the parts of a day, in order; together they cover it.
var TimesOfDay = []TimeOfDay{
	{Slug: "morning", Name: "Morning", From: 0, To: 12},
	{Slug: "afternoon", Name: "Afternoon", From: 12, To: 16},
	{Slug: "evening", Name: "Evening", From: 16, To: 19},
	{Slug: "night", Name: "Night", From: 19, To: 24},
}

// Availability is how a listing describes the seats left of a show.
type Availability int

const (
	Available   Availability = iota
	FillingFast              // fewer than FillingFastShare of the seats left
	SoldOut                  // no seat can be bought
)

// FillingFastShare is the share of seats left, in percent, under which a
// show is filling fast.
const FillingFastShare = 20

// AvailabilityOf describes a show with left of its total seats still on sale.
func AvailabilityOf(left, total int) Availability {
	switch {
	case left <= 0:
		return SoldOut
	case left*100 < total*FillingFastShare:
		return FillingFast
	}
	return Available
}

// Show is one screening: a movie on a screen at a time, with a price per
// seat category in one currency.
type Show struct {
	ID          int64
	MovieID     int64
	MovieTitle  string
	TheatreID   int64
	TheatreName string
	TimeZone    string
	CityName    string
	ScreenID    int64
	ScreenName  string
	StartsAt    time.Time
	EndsAt      time.Time
	Currency    string
	Prices      map[string]int64 // minor units per seat category
	Format      string           // one of Formats; "" in CreateShow is DefaultFormat
	// Language is the language the show plays in: the movie's own, or
	// (Dubbed) another. In CreateShow, "" is the movie's own.
	Language string
	Dubbed   bool
	// Cancelled: the theatre cancelled the show (only Store.ShowOrCancelled
	// returns such a show).
	Cancelled bool
}

// ShowFilter narrows a listing of shows that have not started.
type ShowFilter struct {
	City    string // city slug or id
	MovieID int64
	Theatre int64
	Date    string // YYYY-MM-DD in the theatre's time zone
	After   *ShowCursor
	Limit   int
}

// ShowCursor is the position after which the next page of shows starts.
type ShowCursor struct {
	StartsAt time.Time
	ID       int64
}

// ScreenFacts is what scheduling a show on a screen depends on.
type ScreenFacts struct {
	ScreenID       int64
	TheatreID      int64
	TimeZone       string        // the theatre's IANA zone: wall-clock times are in it
	CleaningBuffer time.Duration // between two shows: part of each show's ends_at
	Categories     []string      // the seat categories of its layout, sorted
}

// TheatreShow is one show of a theatre's schedule, as its admin sees it.
type TheatreShow struct {
	Show
	Status string // SCHEDULED or CANCELLED
	Seats  booking.SeatTally
}

// AdminShow is a show as its admins see it: scheduled or cancelled.
type AdminShow struct {
	Show
	Status string // SCHEDULED or CANCELLED
}

// ShowCounts is how busy a theatre is, by the store's clock: its scheduled
// shows starting today (the theatre's day, in its time zone), those still
// to start, and when the next one starts.
type ShowCounts struct {
	TheatreID int64
	Today     int
	Upcoming  int
	Next      *time.Time // nil: no show to come
	NextID    *int64     // the show that starts at Next
}

// ShowtimeFilter narrows the upcoming scheduled shows of a listing. Zero
// fields do not filter. Within bounds how far ahead to look (0: no bound).
// Languages, Formats and Times each keep the shows that match any of theirs.
type ShowtimeFilter struct {
	CityID    int64
	MovieID   int64
	TheatreID int64
	Date      string // YYYY-MM-DD in each show's theatre's time zone
	Within    time.Duration
	Languages []string // the language a show plays in (its movie's, or its dub)
	Formats   []string
	Times     []TimeOfDay // by the theatre's wall clock
}

// Showtime is an upcoming show as a listing shows it, with how many of its
// seats can still be bought (held seats of lapsed holds count as free) and
// the lowest price among them.
type Showtime struct {
	Show
	SeatsLeft  int
	TotalSeats int
	// FromMinor is the lowest price of a seat still on sale; of any seat
	// when none is.
	FromMinor int64
}

// SoldOut reports whether no seat of the show can be bought now.
func (st Showtime) SoldOut() bool { return st.SeatsLeft == 0 }

// Availability describes the show's seats left.
func (st Showtime) Availability() Availability {
	return AvailabilityOf(st.SeatsLeft, st.TotalSeats)
}
