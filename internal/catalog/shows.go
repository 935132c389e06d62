package catalog

import "time"

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
