package admin

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/names"
)

// Limits of a seat layout. The grid and the seat numbers are bounded so
// that a layout a person can draw always fits the database's integers.
const (
	MaxSeats = 2000
	maxGrid  = 999
	// MaxGridCells bounds a layout's grid, rows times columns, gaps
	// included: the seat map and the editor draw every cell, so 2,000
	// seats spread over 1,000 x 1,000 made a show page of 50 MB. The
	// editor shows no bigger grid either.
	MaxGridCells     = 40000
	maxNumber        = 9999
	maxScreenNameLen = 60
)

var (
	seatIDPattern   = regexp.MustCompile(`^[A-Za-z0-9-]{1,16}$`)
	categoryPattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,31}$`)
)

// CreateScreen adds a screen with its seat layout and ideal viewing point
// (nil: the default) to a theatre the actor administers. A bad name, seat
// or point is a *catalog.FieldError ("name", "seats", naming the first bad
// seat, or "ideal"); a name the theatre already has is one for "name".
func (s *Service) CreateScreen(ctx context.Context, a Actor, theatreID int64, name string, seats []catalog.SeatSpec, ideal *catalog.GridPoint) (int64, error) {
	if err := s.requireTheatre(ctx, a, theatreID); err != nil {
		return 0, err
	}
	if err := checkScreenName(name); err != nil {
		return 0, err
	}
	if err := checkLayout(seats); err != nil {
		return 0, err
	}
	if err := checkIdeal(ideal, seats); err != nil {
		return 0, err
	}
	id, err := s.Store.AdminCreateScreen(ctx, theatreID, name, seats, ideal, func(id int64) audit.Entry {
		after := map[string]any{"name": name, "seats": len(seats), "categories": catalog.Screen{Seats: seats}.Categories()}
		if ideal != nil {
			after["ideal"] = ideal
		}
		return auditEntry(a, theatreID, "screen.create", fmt.Sprintf("screen %d", id), nil, after)
	})
	if err != nil {
		return 0, fmt.Errorf("create screen: %w", err)
	}
	return id, nil
}

// Screen returns a screen of a theatre the actor administers, with its
// layout.
func (s *Service) Screen(ctx context.Context, a Actor, screenID int64) (catalog.Screen, error) {
	if _, err := s.requireScreen(ctx, a, screenID); err != nil {
		return catalog.Screen{}, err
	}
	return s.Store.Screen(ctx, screenID)
}

// ReplaceLayout makes seats the layout of a screen the actor administers
// and of its upcoming shows (see postgres.(*Store).ReplaceLayout for what
// is refused), and changes its ideal viewing point as ideal says. The
// audit entry has the seat counts before and after, the seats changed and
// the ideal point before and after (null: the default).
func (s *Service) ReplaceLayout(ctx context.Context, a Actor, screenID int64, seats []catalog.SeatSpec, ideal catalog.IdealChange) (catalog.LayoutChange, error) {
	return s.ReplaceLayoutPriced(ctx, a, screenID, seats, ideal, catalog.NewPrices{})
}

// ReplaceLayoutPriced is ReplaceLayout that also prices, in the same
// transaction, the seat categories upcoming shows have no price for (a
// category the layout adds), from prices (see catalog.NewPrices and
// postgres.(*Store).ReplaceLayoutPriced): the layout and every price, or
// nothing. Every price out of bounds is reported at once, each a
// *catalog.FieldError naming it ("prices.VIP", "show_prices.12.VIP"). The
// audit entry has the prices added.
func (s *Service) ReplaceLayoutPriced(ctx context.Context, a Actor, screenID int64, seats []catalog.SeatSpec,
	ideal catalog.IdealChange, prices catalog.NewPrices) (catalog.LayoutChange, error) {
	theatre, err := s.requireScreen(ctx, a, screenID)
	if err != nil {
		return catalog.LayoutChange{}, err
	}
	if err := checkLayout(seats); err != nil {
		return catalog.LayoutChange{}, err
	}
	if ideal.Set {
		if err := checkIdeal(ideal.At, seats); err != nil {
			return catalog.LayoutChange{}, err
		}
	}
	if err := checkNewPrices(prices); err != nil {
		return catalog.LayoutChange{}, err
	}
	ch, err := s.Store.ReplaceLayoutPriced(ctx, screenID, seats, ideal, prices, func(ch catalog.LayoutChange) audit.Entry {
		after := map[string]any{"seats": ch.After, "added": ch.Added, "removed": ch.Removed, "moved": ch.Moved,
			"recategorized": ch.Recategorized, "relabelled": ch.Relabelled, "ideal": ch.Ideal}
		if len(ch.Priced) > 0 {
			after["prices_added"] = ch.Priced
		}
		return auditEntry(a, theatre, "screen.replace_layout", fmt.Sprintf("screen %d", screenID),
			map[string]any{"seats": ch.Before, "ideal": ch.IdealBefore}, after)
	})
	if err != nil {
		return ch, fmt.Errorf("replace layout: %w", err)
	}
	return ch, nil
}

func checkScreenName(name string) error {
	if n := utf8.RuneCountInString(strings.TrimSpace(name)); n == 0 || n > maxScreenNameLen || !printable(name) {
		return &catalog.FieldError{Field: "name", Message: fmt.Sprintf("A screen needs a name of 1 to %d characters.", maxScreenNameLen)}
	}
	if r, ok := names.Hidden(name); ok {
		return &catalog.FieldError{Field: "name", Message: names.Problem("The screen name", r) + "."}
	}
	return nil
}

// checkLayout refuses a layout the database would refuse, or a person
// could not mean, naming the first bad seat.
func checkLayout(seats []catalog.SeatSpec) error {
	switch {
	case len(seats) == 0:
		return &catalog.FieldError{Field: "seats", Message: "A layout needs at least one seat."}
	case len(seats) > MaxSeats:
		return &catalog.FieldError{Field: "seats", Message: fmt.Sprintf("A layout has at most %d seats; this one has %d.", MaxSeats, len(seats))}
	}
	ids := make(map[string]bool, len(seats))
	cells := make(map[[2]int]string, len(seats))
	for i, st := range seats {
		if !seatIDPattern.MatchString(st.ID) {
			return seatError(i, st.ID, "its id must be 1 to 16 letters, digits or dashes")
		}
		if problem := seatProblem(st); problem != "" {
			return seatError(i, st.ID, problem)
		}
		if ids[st.ID] {
			return seatError(i, st.ID, "this id is in the layout twice")
		}
		ids[st.ID] = true
		cell := [2]int{st.GridRow, st.GridCol}
		if other, taken := cells[cell]; taken {
			return seatError(i, st.ID, fmt.Sprintf("its grid cell (row %d, column %d) is taken by seat %s", st.GridRow, st.GridCol, other))
		}
		cells[cell] = st.ID
	}
	return checkGrid(seats)
}

// checkIdeal refuses an ideal viewing point outside the grid of seats,
// from row and column 0 to the last ones used: best available would then
// seat every party as near the edge as it can. nil, the default, is fine.
func checkIdeal(ideal *catalog.GridPoint, seats []catalog.SeatSpec) error {
	if ideal == nil {
		return nil
	}
	rows, cols := 0, 0
	for _, st := range seats {
		rows, cols = max(rows, st.GridRow+1), max(cols, st.GridCol+1)
	}
	if ideal.Row < 0 || ideal.Col < 0 || ideal.Row >= rows || ideal.Col >= cols {
		return &catalog.FieldError{Field: "ideal", Message: fmt.Sprintf(
			"The best view must be a cell of the layout's grid: grid row 0 to %d and grid column 0 to %d.", rows-1, cols-1)}
	}
	return nil
}

// checkGrid refuses a layout whose grid, from row and column 0 to the last
// ones used, has more than MaxGridCells cells.
func checkGrid(seats []catalog.SeatSpec) error {
	rows, cols := 0, 0
	for _, st := range seats {
		rows, cols = max(rows, st.GridRow+1), max(cols, st.GridCol+1)
	}
	if rows*cols > MaxGridCells {
		return &catalog.FieldError{Field: "seats", Message: fmt.Sprintf(
			"A layout's grid has at most %d cells (rows times columns, gaps included); this one is %d rows by %d columns, %d cells. Move the seats closer together.",
			MaxGridCells, rows, cols, rows*cols)}
	}
	return nil
}

// seatProblem is what is wrong with one seat on its own, or "".
func seatProblem(st catalog.SeatSpec) string {
	hidden, isHidden := names.HiddenInLabel(st.Row)
	switch {
	case !categoryPattern.MatchString(st.Category):
		return "its category must be a capital letter then up to 31 capitals, digits or underscores, like STANDARD"
	case utf8.RuneCountInString(st.Row) < 1 || utf8.RuneCountInString(st.Row) > 8 || !printable(st.Row):
		return "its row label must be 1 to 8 characters"
	case isHidden:
		return names.Problem("its row label", hidden)
	case st.Number < 1 || st.Number > maxNumber:
		return fmt.Sprintf("its number must be 1 to %d", maxNumber)
	case st.GridRow < 0 || st.GridCol < 0 || st.GridRow > maxGrid || st.GridCol > maxGrid:
		return fmt.Sprintf("its grid row and column must be 0 to %d", maxGrid)
	}
	return ""
}

// SeatError is the first bad seat of a layout: a *catalog.FieldError for
// "seats" that also says which seat, by its place in the list (from 0) and
// its id as sent.
type SeatError struct {
	Index int
	Seat  string
	Err   *catalog.FieldError
}

func (e *SeatError) Error() string { return e.Err.Error() }

func (e *SeatError) Unwrap() error { return e.Err }

func seatError(i int, id, problem string) error {
	name := "Seat " + id
	if !seatIDPattern.MatchString(id) {
		name = fmt.Sprintf("Seat %d of the list", i+1)
	}
	return &SeatError{Index: i, Seat: id, Err: &catalog.FieldError{Field: "seats", Message: name + ": " + problem + "."}}
}

// printable reports whether s is valid text without control characters
// (Postgres text cannot even hold NUL).
func printable(s string) bool {
	return utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0
}

// UpdateScreen renames a screen of a theatre the actor administers, or
// retires it, or puts it back in use, as p says (see
// postgres.(*Store).AdminUpdateScreen). A retired screen takes no new
// shows and leaves the lists shows are scheduled from; its past shows,
// their bookings and reports stay. A screen with shows still to start is
// not retired (*catalog.ScreenHasShowsError names them). A change that
// changes nothing is not audited.
func (s *Service) UpdateScreen(ctx context.Context, a Actor, screenID int64, p catalog.ScreenPatch) (catalog.ScreenUpdate, error) {
	theatre, err := s.requireScreen(ctx, a, screenID)
	if err != nil {
		return catalog.ScreenUpdate{}, err
	}
	if p.Name != nil {
		name := strings.TrimSpace(*p.Name)
		if err := checkScreenName(name); err != nil {
			return catalog.ScreenUpdate{}, err
		}
		p.Name = &name
	}
	sc, err := s.Store.Screen(ctx, screenID)
	if err != nil {
		return catalog.ScreenUpdate{}, err
	}
	sc.Seats = nil
	if p.Name != nil && *p.Name == sc.Name {
		p.Name = nil
	}
	if p.Retired != nil && *p.Retired == (sc.RetiredAt != nil) {
		p.Retired = nil
	}
	if p == (catalog.ScreenPatch{}) {
		return catalog.ScreenUpdate{Before: sc, After: sc}, nil
	}
	record := func(sc catalog.Screen) map[string]any {
		return map[string]any{"name": sc.Name, "retired": sc.RetiredAt != nil}
	}
	up, err := s.Store.AdminUpdateScreen(ctx, screenID, p, func(up catalog.ScreenUpdate) audit.Entry {
		return auditEntry(a, theatre, "screen.update", fmt.Sprintf("screen %d", screenID), record(up.Before), record(up.After))
	})
	if err != nil {
		return up, fmt.Errorf("update screen: %w", err)
	}
	return up, nil
}

// checkNewPrices reports every price of p that is negative or more than a
// seat may cost, and every category that is none, at once.
func checkNewPrices(p catalog.NewPrices) error {
	var problems []error
	check := func(field, what, category string, price int64) {
		switch {
		case !categoryPattern.MatchString(category):
			problems = append(problems, &catalog.FieldError{Field: field, Message: fmt.Sprintf("%q is not a seat category, like STANDARD", category)})
		case price < 0:
			problems = append(problems, &catalog.FieldError{Field: field, Message: fmt.Sprintf("the price of %s%s is negative", category, what)})
		case !money.ValidPrice(price):
			problems = append(problems, &catalog.FieldError{Field: field,
				Message: fmt.Sprintf("the price of %s%s is more than a seat may cost: at most %d in minor units", category, what, money.MaxPriceMinor)})
		}
	}
	for _, cat := range slices.Sorted(maps.Keys(p.Default)) {
		check("prices."+cat, "", cat, p.Default[cat])
	}
	for _, show := range slices.Sorted(maps.Keys(p.Shows)) {
		for _, cat := range slices.Sorted(maps.Keys(p.Shows[show])) {
			check(fmt.Sprintf("show_prices.%d.%s", show, cat), fmt.Sprintf(" for show %d", show), cat, p.Shows[show][cat])
		}
	}
	return errors.Join(problems...)
}

// PriceNeeds are the upcoming shows of a screen the actor administers that
// have no price for some category of seats, soonest first: the prices
// saving seats as its layout needs (see ReplaceLayoutPriced).
func (s *Service) PriceNeeds(ctx context.Context, a Actor, screenID int64, seats []catalog.SeatSpec) ([]catalog.PriceNeed, error) {
	if _, err := s.requireScreen(ctx, a, screenID); err != nil {
		return nil, err
	}
	return s.Store.PriceNeeds(ctx, screenID, seats)
}
