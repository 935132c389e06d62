package catalog

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
