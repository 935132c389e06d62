package catalog

import (
	"slices"
	"time"
)

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

// Screen is a screen with its seat layout.
type Screen struct {
	ID        int64
	TheatreID int64
	Name      string
	Seats     []SeatSpec // by grid row, then column
	// Ideal is the cell best available seats a party nearest to; nil: the
	// default, two thirds of the way back on the centre line.
	Ideal *GridPoint
	// RetiredAt is when the screen was retired (it takes no new shows);
	// nil while it is in use.
	RetiredAt *time.Time
}

// ScreenPatch is a change to a screen: each nil field stays as it is.
// Retired true retires it, false puts it back in use.
type ScreenPatch struct {
	Name    *string
	Retired *bool
}

// ScreenUpdate is a screen before and after a change.
type ScreenUpdate struct {
	Before, After Screen // without their seats
}

// ScheduledShow names a scheduled show of a screen.
type ScheduledShow struct {
	ID         int64
	StartsAt   time.Time
	MovieTitle string
	TimeZone   string // its theatre's
}

// Categories are the seat categories of the layout, sorted.
func (sc Screen) Categories() []string {
	cats := make([]string, 0, 4)
	for _, st := range sc.Seats {
		cats = append(cats, st.Category)
	}
	slices.Sort(cats)
	return slices.Compact(cats)
}

// LayoutChange is what a new layout changes, seat ids sorted.
type LayoutChange struct {
	Before, After int // the number of seats
	Added         []string
	Removed       []string
	Moved         []string // another grid cell
	Recategorized []string
	Relabelled    []string // another row label or number, accessible or companion
	// IdealBefore and Ideal are the screen's ideal viewing point before and
	// after (nil: the default).
	IdealBefore, Ideal *GridPoint
	// Priced are the prices a new layout's categories got in upcoming
	// shows that had none for them (see NewPrices), by show and category.
	Priced []PriceAdded
}

// NewPrices are the prices a new layout brings to its screen's upcoming
// shows for the seat categories they have no price for (a category the
// layout adds): Default a price per category for every such show, Shows a
// price per show and category, before Default. Prices are minor units of
// each show's currency. A price only ever fills a missing one: a show's
// price of a category it has is changed by the show's own price change.
type NewPrices struct {
	Default map[string]int64
	Shows   map[int64]map[string]int64
}

// Empty reports whether p gives no price.
func (p NewPrices) Empty() bool { return len(p.Default) == 0 && len(p.Shows) == 0 }

// PriceAdded is a price a show got for a seat category it had none for.
type PriceAdded struct {
	ShowID     int64  `json:"show_id"`
	Category   string `json:"category"`
	PriceMinor int64  `json:"price_minor"`
}

// PriceNeed is an upcoming show of a screen without a price for some of
// the seat categories of a layout: what a new layout needs prices for.
type PriceNeed struct {
	ScheduledShow
	Currency   string
	Categories []string // sorted
}
