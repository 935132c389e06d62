package booking

import "time"

// City groups theatres.
type City struct {
	ID   int64
	Name string
	Slug string
}

// Theatre is a cinema in a city; its shows are shown in its time zone.
type Theatre struct {
	ID       int64
	CityID   int64
	CityName string
	Name     string
	Address  string
	TimeZone string
	Currency string // ISO 4217: the currency its shows are priced in by default
}

// SeatSpec places one physical seat in a screen's grid. Its JSON is a seat
// of a layout as the admin API (docs/api.md) and the layout editor send it.
type SeatSpec struct {
	ID         string `json:"id"` // the label, e.g. A1; unique within the screen
	Row        string `json:"row"`
	Number     int    `json:"number"`
	Category   string `json:"category"`
	GridRow    int    `json:"grid_row"`
	GridCol    int    `json:"grid_col"`
	Accessible bool   `json:"accessible"`
	Companion  bool   `json:"companion"` // beside an accessible seat, for the person with its occupant
}

// GridPoint is a cell of a screen's grid, in the grid rows and columns its
// seats are placed by. Its JSON is the admin API's "ideal".
type GridPoint struct {
	Row int `json:"grid_row"`
	Col int `json:"grid_col"`
}

// IdealChange is what a change of layout does to its screen's ideal
// viewing point, the cell best available seats a party nearest to: nothing
// (the zero value), or, when Set, make it At; At nil is the default, two
// thirds of the way back on the centre line.
type IdealChange struct {
	Set bool
	At  *GridPoint
}

// Movie is a film that shows are scheduled for.
type Movie struct {
	ID              int64
	Title           string
	DurationMinutes int
	Rating          string
	Synopsis        string
	Language        string      // the language it was made in; a show may be dubbed
	Genres          []string    // e.g. Drama, Thriller
	Poster          *PosterInfo // nil: no poster yet
}

// Poster content types: what an upload may be.
var PosterTypes = []string{"image/png", "image/jpeg", "image/webp"}

// PosterInfo is what a page needs to show a movie's poster: the version
// (part of its content hash) that makes its URL change with its content,
// its size, so the page keeps the room for it, and its text alternative.
type PosterInfo struct {
	Version string
	Width   int
	Height  int
	Alt     string
}

// Poster is a movie's poster image with its bytes.
type Poster struct {
	PosterInfo
	ContentType string // one of PosterTypes
	Data        []byte
}

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
