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
}

// SeatSpec places one physical seat in a screen's grid.
type SeatSpec struct {
	ID         string // the label, e.g. A1; unique within the screen
	Row        string
	Number     int
	Category   string
	GridRow    int
	GridCol    int
	Accessible bool
}

// Movie is a film that shows are scheduled for.
type Movie struct {
	ID              int64
	Title           string
	DurationMinutes int
	Rating          string
	Synopsis        string
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
