package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
)

// errScreenNameTaken is a second screen of one name in a theatre.
var errScreenNameTaken = &catalog.FieldError{Field: "name", Message: "This theatre already has a screen with this name."}

// AdminCreateScreen adds a screen with its seat layout and ideal viewing
// point (nil: the default) and the audit entry that entry makes of its id, in
// one transaction. A name the theatre already has is a catalog.FieldError
// for "name".
func (s *Store) AdminCreateScreen(ctx context.Context, theatreID int64, name string, seats []catalog.SeatSpec,
	ideal *catalog.GridPoint, entry func(screenID int64) audit.Entry) (int64, error) {
	var id int64
	err := s.inTx(ctx, func(tx pgx.Tx) (err error) {
		if id, err = createScreen(ctx, tx, theatreID, name, seats); err != nil {
			return err
		}
		if err := setIdeal(ctx, tx, id, ideal); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, entry(id))
	})
	if code, constraint := pgCode(err); code == codeUniqueViolation && constraint == "screens_theatre_id_name_key" {
		return 0, errScreenNameTaken
	}
	if code, _ := pgCode(err); code == codeForeignKey {
		return 0, fmt.Errorf("create screen in theatre %d: %w", theatreID, booking.ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("create screen %q in theatre %d: %w", name, theatreID, err)
	}
	return id, nil
}

// Screen returns a screen with its layout (retired seats are no part of
// it), or booking.ErrNotFound.
func (s *Store) Screen(ctx context.Context, id int64) (catalog.Screen, error) {
	sc := catalog.Screen{ID: id}
	var row, col *int
	err := s.pool.QueryRow(ctx, `SELECT theatre_id, name, ideal_grid_row, ideal_grid_col, retired_at FROM screens WHERE id = $1`, id).
		Scan(&sc.TheatreID, &sc.Name, &row, &col, &sc.RetiredAt)
	sc.Ideal = gridPoint(row, col)
	if errors.Is(err, pgx.ErrNoRows) {
		return sc, fmt.Errorf("screen %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return sc, fmt.Errorf("read screen %d: %w", id, err)
	}
	if sc.Seats, err = layout(ctx, s.pool, id); err != nil {
		return sc, fmt.Errorf("read screen %d: %w", id, err)
	}
	return sc, nil
}

// gridPoint is the cell of a nullable row and column, as screens keep an
// ideal viewing point: nil when either is NULL.
func gridPoint(row, col *int) *catalog.GridPoint {
	if row == nil || col == nil {
		return nil
	}
	return &catalog.GridPoint{Row: *row, Col: *col}
}

// setIdeal makes ideal the ideal viewing point of screenID (nil: the
// default).
func setIdeal(ctx context.Context, tx pgx.Tx, screenID int64, ideal *catalog.GridPoint) error {
	var row, col *int
	if ideal != nil {
		row, col = &ideal.Row, &ideal.Col
	}
	if _, err := tx.Exec(ctx, `UPDATE screens SET ideal_grid_row = $2, ideal_grid_col = $3 WHERE id = $1`, screenID, row, col); err != nil {
		return fmt.Errorf("set the ideal viewing point of screen %d: %w", screenID, err)
	}
	return nil
}

// layout reads a screen's seats (not the retired ones) by grid position.
func layout(ctx context.Context, q querier, screenID int64) ([]catalog.SeatSpec, error) {
	rows, err := q.Query(ctx, `
		SELECT seat_id, row_label, number, category, grid_row, grid_col, accessible, companion
		  FROM seats WHERE screen_id = $1 AND NOT retired
		 ORDER BY grid_row, grid_col`, screenID)
	if err != nil {
		return nil, fmt.Errorf("read layout: %w", err)
	}
	seats, err := pgx.CollectRows(rows, pgx.RowToStructByPos[catalog.SeatSpec])
	if err != nil {
		return nil, fmt.Errorf("read layout: %w", err)
	}
	return seats, nil
}

// diffLayout compares a screen's layout with the one replacing it.
func diffLayout(old, next []catalog.SeatSpec) catalog.LayoutChange {
	ch := catalog.LayoutChange{Before: len(old), After: len(next)}
	was := make(map[string]catalog.SeatSpec, len(old))
	for _, st := range old {
		was[st.ID] = st
	}
	for _, st := range next {
		o, ok := was[st.ID]
		delete(was, st.ID)
		switch {
		case !ok:
			ch.Added = append(ch.Added, st.ID)
			continue
		case o.GridRow != st.GridRow || o.GridCol != st.GridCol:
			ch.Moved = append(ch.Moved, st.ID)
		}
		if o.Category != st.Category {
			ch.Recategorized = append(ch.Recategorized, st.ID)
		}
		if o.Row != st.Row || o.Number != st.Number || o.Accessible != st.Accessible || o.Companion != st.Companion {
			ch.Relabelled = append(ch.Relabelled, st.ID)
		}
	}
	for id := range was {
		ch.Removed = append(ch.Removed, id)
	}
	for _, ids := range [][]string{ch.Added, ch.Removed, ch.Moved, ch.Recategorized, ch.Relabelled} {
		slices.Sort(ids)
	}
	return ch
}

// disturbed are the seats of ch whose change a ticket holder would
// notice: gone, elsewhere, or at another price.
func disturbed(ch catalog.LayoutChange) []string {
	ids := slices.Concat(ch.Removed, ch.Moved, ch.Recategorized)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// ReplaceLayout makes seats the layout of screenID, and of its upcoming
// shows (scheduled, not started), and makes the screen's ideal viewing
// point what ideal says, in one transaction with the audit entry that
// entry makes of the change:
//
//   - a seat that leaves the layout leaves the upcoming shows; past and
//     cancelled shows keep it, so it is deleted only when no show refers
//     to it, and retired otherwise (see migration 000006);
//   - an added seat is AVAILABLE in every upcoming show at once;
//   - a re-categorized seat takes its new category (and price) there.
//
// Removing, moving or re-categorizing a seat that a live hold or a booking
// owns in an upcoming show is refused with *catalog.LayoutInUseError; a
// category some upcoming show has no price for with
// *catalog.MissingPricesError. Nothing changes then.
//
// Locks: the screen row first, which keeps CreateShow (whose insert of the
// show waits on it) from copying a layout that is being replaced; then the
// show_seats rows of the upcoming shows in the global order (show_id,
// seat_id) before anything is decided, so no hold can take a seat between
// the decision and the change. No hold or booking row is locked.
func (s *Store) ReplaceLayout(ctx context.Context, screenID int64, seats []catalog.SeatSpec, ideal catalog.IdealChange,
	entry func(catalog.LayoutChange) audit.Entry) (catalog.LayoutChange, error) {
	return s.ReplaceLayoutPriced(ctx, screenID, seats, ideal, catalog.NewPrices{}, entry)
}

// ReplaceLayoutPriced is ReplaceLayout that also gives the upcoming shows
// a price for each category of seats they have none for, from prices (see
// catalog.NewPrices), in the same transaction, before the seats of those
// categories go on sale there: the layout and every price, or nothing. A
// show still without a price for a category is a
// *catalog.MissingPricesError naming the categories and the shows. A price
// for a category no seat of the layout is in, or for a show that is not an
// upcoming show of the screen, is a *catalog.FieldError ("prices",
// "show_prices"). The audit entry has the prices added (ch.Priced).
func (s *Store) ReplaceLayoutPriced(ctx context.Context, screenID int64, seats []catalog.SeatSpec, ideal catalog.IdealChange,
	prices catalog.NewPrices, entry func(catalog.LayoutChange) audit.Entry) (catalog.LayoutChange, error) {
	var ch catalog.LayoutChange
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var (
			theatre  int64
			row, col *int
		)
		err := tx.QueryRow(ctx, `SELECT theatre_id, ideal_grid_row, ideal_grid_col FROM screens WHERE id = $1 FOR UPDATE`, screenID).
			Scan(&theatre, &row, &col)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("screen %d: %w", screenID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("lock screen: %w", err)
		}
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		shows, owned, err := lockUpcomingSeats(ctx, tx, screenID, now)
		if err != nil {
			return err
		}
		old, err := layout(ctx, tx, screenID)
		if err != nil {
			return err
		}
		ch = diffLayout(old, seats)
		ch.IdealBefore = gridPoint(row, col)
		ch.Ideal = ch.IdealBefore
		if err := inUse(ch, owned); err != nil {
			return err
		}
		if ch.Priced, err = fillPrices(ctx, tx, shows, seats, prices); err != nil {
			return err
		}
		if err := applyLayout(ctx, tx, screenID, shows, seats, ch); err != nil {
			return err
		}
		if ideal.Set {
			ch.Ideal = ideal.At
			if err := setIdeal(ctx, tx, screenID, ideal.At); err != nil {
				return err
			}
		}
		return s.insertAudit(ctx, tx, entry(ch))
	})
	if err != nil {
		return ch, fmt.Errorf("replace layout of screen %d: %w", screenID, err)
	}
	return ch, nil
}

// txNow is the store's clock, or the database's when none is injected.
func (s *Store) txNow(ctx context.Context, tx pgx.Tx) (time.Time, error) {
	var now time.Time
	if err := tx.QueryRow(ctx, `SELECT coalesce($1::timestamptz, clock_timestamp())`, s.now()).Scan(&now); err != nil {
		return now, fmt.Errorf("read the clock: %w", err)
	}
	return now, nil
}

// ownedSeat is a seat a live hold or a booking owns in an upcoming show.
type ownedSeat struct {
	ShowID int64
	SeatID string
}

// lockUpcomingSeats locks every show_seats row of screenID's upcoming
// shows in the global order and returns those shows and the seats owned in
// them (BOOKED, or HELD by a hold that has not lapsed).
func lockUpcomingSeats(ctx context.Context, tx pgx.Tx, screenID int64, now time.Time) ([]int64, []ownedSeat, error) {
	rows, err := tx.Query(ctx, `SELECT id FROM shows WHERE screen_id = $1 AND status = 'SCHEDULED' AND starts_at > $2 ORDER BY id`,
		screenID, now)
	if err != nil {
		return nil, nil, fmt.Errorf("upcoming shows: %w", err)
	}
	shows, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, nil, fmt.Errorf("upcoming shows: %w", err)
	}
	// MATERIALIZED: the outer query reads every locked row, so all of them
	// are locked, not only the owned ones it returns.
	rows, err = tx.Query(ctx, `
		WITH locked AS MATERIALIZED (
			SELECT show_id, seat_id, status, hold_expires_at FROM show_seats
			 WHERE show_id = ANY ($1)
			 ORDER BY show_id, seat_id
			   FOR UPDATE)
		SELECT show_id, seat_id FROM locked
		 WHERE status = 'BOOKED' OR (status = 'HELD' AND hold_expires_at > $2)
		 ORDER BY show_id, seat_id`, shows, now)
	if err != nil {
		return nil, nil, fmt.Errorf("lock seats of upcoming shows: %w", err)
	}
	owned, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ownedSeat])
	if err != nil {
		return nil, nil, fmt.Errorf("lock seats of upcoming shows: %w", err)
	}
	return shows, owned, nil
}

// inUse refuses a change that disturbs an owned seat, naming the seats and
// the shows they are owned in.
func inUse(ch catalog.LayoutChange, owned []ownedSeat) error {
	seats := disturbed(ch)
	e := &catalog.LayoutInUseError{}
	for _, o := range owned {
		if _, found := slices.BinarySearch(seats, o.SeatID); found {
			e.Seats = append(e.Seats, o.SeatID)
			e.Shows = append(e.Shows, o.ShowID)
		}
	}
	if len(e.Seats) == 0 {
		return nil
	}
	slices.Sort(e.Seats)
	e.Seats = slices.Compact(e.Seats)
	slices.Sort(e.Shows)
	e.Shows = slices.Compact(e.Shows)
	return e
}

// missingPrices are the (show, category) pairs of shows and the
// categories of seats without a price, by show then category.
func missingPrices(ctx context.Context, q querier, shows []int64, seats []catalog.SeatSpec) ([]catalog.PriceAdded, error) {
	cats := catalog.Screen{Seats: seats}.Categories()
	rows, err := q.Query(ctx, `
		SELECT sh, c, 0::bigint FROM unnest($1::text[]) c, unnest($2::bigint[]) sh
		 WHERE NOT EXISTS (SELECT 1 FROM show_prices p WHERE p.show_id = sh AND p.category = c)
		 ORDER BY sh, c`, cats, shows)
	if err != nil {
		return nil, fmt.Errorf("prices of upcoming shows: %w", err)
	}
	missing, err := pgx.CollectRows(rows, pgx.RowToStructByPos[catalog.PriceAdded])
	if err != nil {
		return nil, fmt.Errorf("prices of upcoming shows: %w", err)
	}
	return missing, nil
}

// fillPrices gives each of shows a price, from prices, for each category
// of seats it has none for, and returns them. A category or show prices
// name that the layout or shows do not have is a *catalog.FieldError; a
// price still missing a *catalog.MissingPricesError.
func fillPrices(ctx context.Context, tx pgx.Tx, shows []int64, seats []catalog.SeatSpec, prices catalog.NewPrices) ([]catalog.PriceAdded, error) {
	cats := catalog.Screen{Seats: seats}.Categories()
	var problems []error
	for _, cat := range slices.Sorted(maps.Keys(prices.Default)) {
		if !slices.Contains(cats, cat) {
			problems = append(problems, &catalog.FieldError{Field: "prices",
				Message: fmt.Sprintf("no seat of this layout is in category %s (it has %s)", cat, strings.Join(cats, ", "))})
		}
	}
	for _, show := range slices.Sorted(maps.Keys(prices.Shows)) {
		if !slices.Contains(shows, show) {
			problems = append(problems, &catalog.FieldError{Field: "show_prices",
				Message: fmt.Sprintf("show %d is not a show of this screen still to start", show)})
			continue
		}
		for _, cat := range slices.Sorted(maps.Keys(prices.Shows[show])) {
			if !slices.Contains(cats, cat) {
				problems = append(problems, &catalog.FieldError{Field: "show_prices",
					Message: fmt.Sprintf("no seat of this layout is in category %s (show %d)", cat, show)})
			}
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	missing, err := missingPrices(ctx, tx, shows, seats)
	if err != nil {
		return nil, err
	}
	var (
		added   []catalog.PriceAdded
		unpaid  = &catalog.MissingPricesError{}
		showIDs []int64
		cats2   []string
		amounts []int64
	)
	for _, m := range missing {
		price, ok := prices.Shows[m.ShowID][m.Category]
		if !ok {
			price, ok = prices.Default[m.Category]
		}
		if !ok {
			unpaid.Categories = append(unpaid.Categories, m.Category)
			unpaid.Shows = append(unpaid.Shows, m.ShowID)
			continue
		}
		m.PriceMinor = price
		added = append(added, m)
		showIDs, cats2, amounts = append(showIDs, m.ShowID), append(cats2, m.Category), append(amounts, price)
	}
	if len(unpaid.Categories) > 0 {
		slices.Sort(unpaid.Categories)
		unpaid.Categories = slices.Compact(unpaid.Categories)
		unpaid.Shows = slices.Compact(unpaid.Shows) // by show already
		return nil, unpaid
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO show_prices (show_id, category, price_minor)
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])`, showIDs, cats2, amounts); err != nil {
		return nil, fmt.Errorf("price the new categories: %w", err)
	}
	return added, nil
}

// PriceNeeds are the upcoming shows of screenID (scheduled, not started by
// the store's clock) without a price for some category of seats, soonest
// first: what saving seats as its layout needs prices for.
func (s *Store) PriceNeeds(ctx context.Context, screenID int64, seats []catalog.SeatSpec) ([]catalog.PriceNeed, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT sh.id, sh.starts_at, m.title, t.timezone, sh.currency,
		       ARRAY(SELECT c FROM unnest($3::text[]) c
		              WHERE NOT EXISTS (SELECT 1 FROM show_prices p WHERE p.show_id = sh.id AND p.category = c) ORDER BY c)
		  FROM shows sh JOIN movies m ON m.id = sh.movie_id
		  JOIN screens sc ON sc.id = sh.screen_id JOIN theatres t ON t.id = sc.theatre_id
		 WHERE sh.screen_id = $1 AND sh.status = 'SCHEDULED' AND sh.starts_at > coalesce($2::timestamptz, clock_timestamp())
		 ORDER BY sh.starts_at, sh.id`, screenID, s.now(), catalog.Screen{Seats: seats}.Categories())
	if err != nil {
		return nil, fmt.Errorf("price needs of screen %d: %w", screenID, err)
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (catalog.PriceNeed, error) {
		var n catalog.PriceNeed
		err := r.Scan(&n.ID, &n.StartsAt, &n.MovieTitle, &n.TimeZone, &n.Currency, &n.Categories)
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("price needs of screen %d: %w", screenID, err)
	}
	return slices.DeleteFunc(all, func(n catalog.PriceNeed) bool { return len(n.Categories) == 0 }), nil
}

// applyLayout writes the new layout and makes the upcoming shows' seats
// follow it. The seats' grid rule is checked at commit: seats swapping
// cells pass through a state where two share one.
func applyLayout(ctx context.Context, tx pgx.Tx, screenID int64, shows []int64, seats []catalog.SeatSpec, ch catalog.LayoutChange) error {
	if _, err := tx.Exec(ctx, `SET CONSTRAINTS seats_one_per_cell DEFERRED`); err != nil {
		return fmt.Errorf("defer the grid rule: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM show_seats WHERE show_id = ANY ($1) AND seat_id = ANY ($2)`,
		shows, ch.Removed); err != nil {
		return fmt.Errorf("remove seats from upcoming shows: %w", err)
	}
	if err := putSeats(ctx, tx, screenID, seats); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `
		DELETE FROM seats st WHERE st.screen_id = $1 AND st.seat_id = ANY ($2)
		   AND NOT EXISTS (SELECT 1 FROM show_seats ss WHERE ss.screen_id = st.screen_id AND ss.seat_id = st.seat_id)`,
		screenID, ch.Removed); err != nil {
		return fmt.Errorf("delete removed seats: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE seats SET retired = true WHERE screen_id = $1 AND seat_id = ANY ($2)`,
		screenID, ch.Removed); err != nil {
		return fmt.Errorf("retire removed seats: %w", err)
	}
	// Categories follow the seats; an added seat is on sale at once.
	if _, err := tx.Exec(ctx, `
		UPDATE show_seats ss SET category = st.category
		  FROM seats st
		 WHERE ss.show_id = ANY ($1) AND st.screen_id = ss.screen_id AND st.seat_id = ss.seat_id
		   AND ss.seat_id = ANY ($2)`, shows, ch.Recategorized); err != nil {
		return fmt.Errorf("re-categorize seats of upcoming shows: %w", err)
	}
	if _, err := tx.Exec(ctx, `
		INSERT INTO show_seats (show_id, seat_id, screen_id, category)
		SELECT sh, st.seat_id, st.screen_id, st.category
		  FROM unnest($1::bigint[]) sh, seats st
		 WHERE st.screen_id = $2 AND st.seat_id = ANY ($3)`, shows, screenID, ch.Added); err != nil {
		return fmt.Errorf("put added seats on sale: %w", err)
	}
	return announceShows(ctx, tx, shows...)
}

// AdminUpdateScreen renames a screen or retires it (or puts it back in
// use) as p says, with the audit entry entry makes of the change, in one
// transaction, or fails with booking.ErrNotFound. A name its theatre's
// other screen has is a *catalog.FieldError for "name". A screen with a
// scheduled show still to start cannot be retired: a
// *catalog.ScreenHasShowsError names every such show, and nothing changes.
//
// Locks: the screen's scheduling lock (as ScheduleShows takes it, so no
// show is scheduled on the screen while it is being retired), then its
// row. No seat, hold or payment row is locked.
func (s *Store) AdminUpdateScreen(ctx context.Context, screenID int64, p catalog.ScreenPatch,
	entry func(catalog.ScreenUpdate) audit.Entry) (catalog.ScreenUpdate, error) {
	var up catalog.ScreenUpdate
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockScreenIDs(ctx, tx, []int64{screenID}); err != nil {
			return err
		}
		var row, col *int
		err := tx.QueryRow(ctx, `
			SELECT theatre_id, name, ideal_grid_row, ideal_grid_col, retired_at FROM screens WHERE id = $1 FOR NO KEY UPDATE`,
			screenID).Scan(&up.Before.TheatreID, &up.Before.Name, &row, &col, &up.Before.RetiredAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("screen %d: %w", screenID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("lock screen: %w", err)
		}
		up.Before.ID, up.Before.Ideal = screenID, gridPoint(row, col)
		up.After = up.Before
		if p.Name != nil {
			up.After.Name = *p.Name
		}
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		switch {
		case p.Retired == nil:
		case !*p.Retired:
			up.After.RetiredAt = nil
		case up.Before.RetiredAt == nil:
			shows, err := upcomingShows(ctx, tx, screenID, now)
			if err != nil {
				return err
			}
			if len(shows) > 0 {
				return &catalog.ScreenHasShowsError{Shows: shows}
			}
			up.After.RetiredAt = &now
		}
		if _, err := tx.Exec(ctx, `UPDATE screens SET name = $2, retired_at = $3 WHERE id = $1`,
			screenID, up.After.Name, up.After.RetiredAt); err != nil {
			return fmt.Errorf("write screen: %w", err)
		}
		return s.insertAudit(ctx, tx, entry(up))
	})
	if code, constraint := pgCode(err); code == codeUniqueViolation && constraint == "screens_theatre_id_name_key" {
		return up, errScreenNameTaken
	}
	if err != nil {
		return up, fmt.Errorf("update screen %d: %w", screenID, err)
	}
	return up, nil
}

// upcomingShows are the scheduled shows of screenID that start after now,
// soonest first.
func upcomingShows(ctx context.Context, q querier, screenID int64, now time.Time) ([]catalog.ScheduledShow, error) {
	rows, err := q.Query(ctx, `
		SELECT sh.id, sh.starts_at, m.title, t.timezone
		  FROM shows sh JOIN movies m ON m.id = sh.movie_id
		  JOIN screens sc ON sc.id = sh.screen_id JOIN theatres t ON t.id = sc.theatre_id
		 WHERE sh.screen_id = $1 AND sh.status = 'SCHEDULED' AND sh.starts_at > $2
		 ORDER BY sh.starts_at, sh.id`, screenID, now)
	if err != nil {
		return nil, fmt.Errorf("upcoming shows of screen %d: %w", screenID, err)
	}
	shows, err := pgx.CollectRows(rows, pgx.RowToStructByPos[catalog.ScheduledShow])
	if err != nil {
		return nil, fmt.Errorf("upcoming shows of screen %d: %w", screenID, err)
	}
	return shows, nil
}
