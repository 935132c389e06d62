package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
)

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// validID reports whether s can be the id of a hold, booking or user. Any
// other string names nothing, and must not reach SQL as a uuid.
func validID(s string) bool { return uuidPattern.MatchString(s) }

// holdOutcome is what the hold_seats function answers: a label of the
// hold_outcome enum (migrations/000003_holds.up.sql), where each is
// described. TestHoldOutcomesMatchTheSchema keeps holdOutcomes and the enum's
// labels equal, so the database can answer nothing holdOnce does not know.
type holdOutcome string

const (
	holdHeld         holdOutcome = "HELD"
	holdReplayed     holdOutcome = "REPLAYED"
	holdKeyReused    holdOutcome = "KEY_REUSED"
	holdUnknownShow  holdOutcome = "UNKNOWN_SHOW"
	holdShowClosed   holdOutcome = "SHOW_CLOSED"
	holdUnknownSeats holdOutcome = "UNKNOWN_SEATS"
	holdUnavailable  holdOutcome = "UNAVAILABLE"
	holdActiveHold   holdOutcome = "ACTIVE_HOLD"
	holdLapsedHold   holdOutcome = "LAPSED_HOLD"
	// Added by migrations/000008_hold_client.up.sql.
	holdAddressShowCap holdOutcome = "ADDRESS_SHOW_CAP"
	holdAddressCap     holdOutcome = "ADDRESS_CAP"
)

// holdOutcomes lists every holdOutcome in the enum's order.
var holdOutcomes = []holdOutcome{
	holdHeld, holdReplayed, holdKeyReused, holdUnknownShow, holdShowClosed,
	holdUnknownSeats, holdUnavailable, holdActiveHold, holdLapsedHold,
	holdAddressShowCap, holdAddressCap,
}

// HoldSeats claims req's seats for req's user, all or nothing, in one
// transaction: the hold_seats function, then the orphan rule of the show's
// theatre (see holdNamed), which may refuse the hold
// (*booking.OrphanSeatError). A wait for a seat another request is
// claiming is cut at LockTimeout and the request looked at once more (at
// most three attempts in all), after which it answers as unavailable.
//
// The hold records req.Client, and with req.Caps is refused
// (*booking.HeldSeatsCapError) if it would take that network past a cap.
// The count and the hold are one transaction, serialized per network by
// its lock, taken before any seat's: concurrent holds from one network
// cannot pass a cap together. (That lock's wait is cut at LockTimeout as
// well, and answered as a seat's.)
//
// The hold's amount is hold_seats' sum of its seats' prices. It cannot
// leave bigint: a price is at most money.MaxPriceMinor (1e9, refused above
// that when it is set) and a hold at most maxSeats seats, so a total is at
// most 1e9 times the seat cap (1e12 for a thousand seats,
// money.MaxAmountMinor), some nine million times short of int64's range.
//
// With req.Best the seats are chosen by the server (see holdBest).
func (s *Store) HoldSeats(ctx context.Context, req booking.HoldRequest, maxSeats int) (booking.HoldResult, error) {
	if req.Best != nil {
		return s.holdBest(ctx, req, maxSeats)
	}
	seats, err := req.Normalize(maxSeats)
	if err != nil {
		return booking.HoldResult{}, err
	}
	fingerprint := req.Fingerprint(seats)
	// Races a unique index decides (one active hold per user, one hold per
	// key), a lock wait that timed out and a lapsed hold of the user's make
	// another attempt worthwhile: it sees what the first could not.
	for attempt := 0; ; attempt++ {
		res, retry, err := s.holdNamed(ctx, req, seats, fingerprint)
		if retry && attempt < 2 {
			continue
		}
		return res, err
	}
}

// holdOnce runs hold_seats once on q: the pool (its own transaction), or a
// transaction under way.
func (s *Store) holdOnce(ctx context.Context, q rowQuerier, req booking.HoldRequest, seats []string, fingerprint string) (res booking.HoldResult, retry bool, err error) {
	var (
		outcome   holdOutcome
		holdID    *string
		holdSeats []string
		state     *string
		expiresAt *time.Time
		amount    *int64
		currency  *string
		createdAt *time.Time
		startsAt  *time.Time
		befores   []int64
		percents  []int32
		now       time.Time
	)
	lockTimeout := max(s.LockTimeout.Milliseconds(), 1)
	// The outcome is read as text: a statement a connection prepared keeps
	// its result type even when the enum is created anew (a migration
	// undone and applied again while the pool stays open).
	var client *netip.Prefix
	if req.Client.IsValid() {
		client = &req.Client
	}
	// The show's refund terms come in the same statement: a second query
	// would queue the winner of the seats for a connection again, behind
	// everyone still trying for them.
	err = q.QueryRow(ctx, `
		SELECT h.outcome::text, h.hold_id::text, h.seat_ids, h.state, h.expires_at, h.amount_minor, h.currency, h.created_at,
		       t.starts_at, t.befores, t.percents, coalesce($8::timestamptz, clock_timestamp())
		  FROM hold_seats($1, $2, $3, $4 * interval '1 microsecond', $5, $6, $7, $8::timestamptz, $9::inet, $10, $11) h
		  LEFT JOIN (`+showTermsSQL("$2")+`) t ON true`,
		req.UserID, req.ShowID, seats, req.TTL.Microseconds(), req.Key, fingerprint,
		fmt.Sprintf("%dms", lockTimeout), s.now(), client, capArg(req.Caps.PerShow), capArg(req.Caps.Overall),
	).Scan(&outcome, &holdID, &holdSeats, &state, &expiresAt, &amount, &currency, &createdAt,
		&startsAt, &befores, &percents, &now)
	if err != nil {
		switch code, constraint := pgCode(err); {
		case code == codeUniqueViolation && (constraint == "holds_one_active_per_user" || constraint == "hold_keys_pkey"):
			return res, true, fmt.Errorf("hold seats: %w", err)
		case code == codeLockNotAvail:
			// Someone is claiming these seats right now. One more look
			// usually fails fast on the lock-free check, or finds that the
			// claimer was our own retry under the same key.
			return res, true, &booking.SeatsUnavailableError{Seats: seats}
		}
		return res, false, fmt.Errorf("hold seats: %w", err)
	}

	switch outcome {
	case holdHeld, holdReplayed:
		res = booking.HoldResult{
			Hold: booking.Hold{
				ID: *holdID, UserID: req.UserID, ShowID: req.ShowID, Seats: holdSeats,
				State: booking.HoldState(*state), ExpiresAt: *expiresAt,
				AmountMinor: *amount, Currency: *currency, CreatedAt: *createdAt,
			},
			Replayed: outcome == holdReplayed,
		}
		if startsAt != nil {
			res.Terms = booking.CancellationTerms{Policy: policyOf(befores, percents), StartsAt: *startsAt, Now: now}
		}
		return res, false, nil
	case holdKeyReused:
		return res, false, booking.ErrKeyReused
	case holdUnknownShow:
		return res, false, fmt.Errorf("show %d: %w", req.ShowID, booking.ErrNotFound)
	case holdShowClosed:
		return res, false, booking.ErrShowClosed
	case holdUnknownSeats:
		return res, false, &booking.UnknownSeatsError{Seats: holdSeats}
	case holdUnavailable:
		return res, false, &booking.SeatsUnavailableError{Seats: holdSeats}
	case holdActiveHold:
		return res, false, &booking.ActiveHoldError{HoldID: *holdID}
	case holdLapsedHold:
		if _, err := s.endHold(ctx, *holdID, "", false); err != nil {
			return res, false, fmt.Errorf("expire lapsed hold %s: %w", *holdID, err)
		}
		return res, true, &booking.ActiveHoldError{HoldID: *holdID}
	case holdAddressShowCap, holdAddressCap:
		e := &booking.HeldSeatsCapError{PerShow: outcome == holdAddressShowCap, Max: req.Caps.Overall}
		if e.PerShow {
			e.Max = req.Caps.PerShow
		}
		if expiresAt != nil {
			e.FreesAt = *expiresAt
		}
		return res, false, e
	}
	return res, false, fmt.Errorf("hold seats: unexpected outcome %q", outcome)
}

// capArg is a cap as hold_seats takes it: NULL for none.
func capArg(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}

const holdColumns = `id::text, user_id::text, show_id, seat_ids, state, expires_at, payment_grace, amount_minor, currency, created_at`

func scanHold(row pgx.Row) (booking.Hold, error) {
	var h booking.Hold
	err := row.Scan(&h.ID, &h.UserID, &h.ShowID, &h.Seats, &h.State, &h.ExpiresAt, &h.PaymentGrace, &h.AmountMinor, &h.Currency, &h.CreatedAt)
	return h, err
}

// Hold returns userID's hold holdID with its state as of now: a HELD hold
// that has let its seats go (past its deadline, and past its payment grace
// once a checkout was opened) reads EXPIRED even before the sweeper has
// ended it. In its payment grace it reads HELD: a payment captured in time
// may still confirm it. Another user's hold is not found.
func (s *Store) Hold(ctx context.Context, userID, holdID string) (booking.Hold, error) {
	if !validID(holdID) {
		return booking.Hold{}, fmt.Errorf("hold %q: %w", holdID, booking.ErrNotFound)
	}
	h, err := scanHold(s.pool.QueryRow(ctx, `
		SELECT id::text, user_id::text, show_id, seat_ids,
		       CASE WHEN state = 'HELD' AND expires_at + payment_grace <= coalesce($3::timestamptz, clock_timestamp())
		            THEN 'EXPIRED' ELSE state END,
		       expires_at, payment_grace, amount_minor, currency, created_at
		  FROM holds WHERE id = $1 AND user_id = $2`, holdID, userID, s.now()))
	if errors.Is(err, pgx.ErrNoRows) {
		return h, fmt.Errorf("hold %s: %w", holdID, booking.ErrNotFound)
	}
	if err != nil {
		return h, fmt.Errorf("read hold %s: %w", holdID, err)
	}
	return h, nil
}

// CancelHold releases userID's hold holdID if it is still HELD. An expired or
// cancelled hold is returned unchanged; a confirmed one is refused
// (ErrHoldConfirmed): its booking must be cancelled instead.
func (s *Store) CancelHold(ctx context.Context, userID, holdID string) (booking.Hold, error) {
	if !validID(holdID) {
		return booking.Hold{}, fmt.Errorf("hold %q: %w", holdID, booking.ErrNotFound)
	}
	h, err := s.endHold(ctx, holdID, userID, true)
	if err != nil {
		return h, err
	}
	if h.State == booking.HoldConfirmed {
		return h, booking.ErrHoldConfirmed
	}
	return h, nil
}

// ReleaseHold is CancelHold answered with the show's refund terms as they
// stand now, read in the same statement: the answer to a release names
// them, and a second query would cost every release a round trip.
func (s *Store) ReleaseHold(ctx context.Context, userID, holdID string) (booking.HoldResult, error) {
	var res booking.HoldResult
	if !validID(holdID) || !validID(userID) {
		return res, fmt.Errorf("hold %q: %w", holdID, booking.ErrNotFound)
	}
	var (
		h        = &res.Hold
		startsAt *time.Time
		befores  []int64
		percents []int32
		now      time.Time
	)
	err := s.pool.QueryRow(ctx, `
		SELECT h.id::text, h.user_id::text, h.show_id, h.seat_ids, h.state, h.expires_at, h.payment_grace,
		       h.amount_minor, h.currency, h.created_at,
		       t.starts_at, t.befores, t.percents, coalesce($3::timestamptz, clock_timestamp())
		  FROM end_hold($1, $2, true, $3::timestamptz) h
		  LEFT JOIN LATERAL (`+showTermsSQL("h.show_id")+`) t ON true`,
		holdID, userID, s.now(),
	).Scan(&h.ID, &h.UserID, &h.ShowID, &h.Seats, &h.State, &h.ExpiresAt, &h.PaymentGrace, &h.AmountMinor, &h.Currency, &h.CreatedAt,
		&startsAt, &befores, &percents, &now)
	if errors.Is(err, pgx.ErrNoRows) {
		return res, fmt.Errorf("hold %s: %w", holdID, booking.ErrNotFound)
	}
	if err != nil {
		return res, fmt.Errorf("end hold %s: %w", holdID, err)
	}
	if startsAt != nil {
		res.Terms = booking.CancellationTerms{Policy: policyOf(befores, percents), StartsAt: *startsAt, Now: now}
	}
	if h.State == booking.HoldConfirmed {
		return res, booking.ErrHoldConfirmed
	}
	return res, nil
}

// endHold ends hold holdID if it is HELD: as CANCELLED when cancel is set and
// it has not lapsed, else as EXPIRED once it has lapsed. userID, when set,
// must own the hold. One round trip, on a connection of its own.
func (s *Store) endHold(ctx context.Context, holdID, userID string, cancel bool) (booking.Hold, error) {
	var user *string
	if userID != "" {
		if !validID(userID) {
			return booking.Hold{}, fmt.Errorf("hold %s: %w", holdID, booking.ErrNotFound)
		}
		user = &userID
	}
	return endHoldOn(ctx, s.pool, holdID, user, cancel, s.now())
}

// rowQuerier runs one query: the pool, for a statement that is its own
// transaction, or a transaction already under way.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// endHoldOn runs the end_hold function (migrations/000003_holds.up.sql) on q,
// the one place that says which seats an ending hold gives back: only those
// it still owns, so a stale release never frees a seat a newer hold took
// over after it lapsed. The function takes the locks in the global order;
// inside a transaction that already holds them it takes nothing new. now is
// the decision time (nil: the database clock).
func endHoldOn(ctx context.Context, q rowQuerier, holdID string, user *string, cancel bool, now any) (booking.Hold, error) {
	h, err := scanHold(q.QueryRow(ctx, `SELECT `+holdColumns+` FROM end_hold($1, $2, $3, $4::timestamptz)`,
		holdID, user, cancel, now))
	if errors.Is(err, pgx.ErrNoRows) {
		return h, fmt.Errorf("hold %s: %w", holdID, booking.ErrNotFound)
	}
	if err != nil {
		return h, fmt.Errorf("end hold %s: %w", holdID, err)
	}
	return h, nil
}

// lockSeats takes the row locks of seats of showID in the global order,
// (show_id, seat_id): the first step of every path that changes them.
func lockSeats(ctx context.Context, tx pgx.Tx, showID int64, seats []string) error {
	if _, err := tx.Exec(ctx, `
		SELECT 1 FROM show_seats WHERE show_id = $1 AND seat_id = ANY ($2)
		 ORDER BY seat_id FOR UPDATE`, showID, seats); err != nil {
		return fmt.Errorf("lock seats of show %d: %w", showID, err)
	}
	return nil
}

// ExpireHolds ends, as EXPIRED, up to limit holds that have lapsed (their
// deadline has passed, and their payment grace if a checkout was opened),
// releasing the seats each still owns, and returns how many it ended. It is
// the sweeper's batch: correctness never depends on it (every decision also
// expires lazily); it frees the seat map promptly. Confirmed seats are never
// touched: only seats HELD by the lapsed holds themselves are released.
func (s *Store) ExpireHolds(ctx context.Context, limit int) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '2s'`); err != nil {
			return fmt.Errorf("set lock timeout: %w", err)
		}
		var ids []string
		rows, err := tx.Query(ctx, `
			WITH now AS (SELECT coalesce($1::timestamptz, clock_timestamp()) AS t)
			SELECT id::text FROM holds, now
			 WHERE state = 'HELD' AND expires_at <= now.t AND expires_at + payment_grace <= now.t
			 ORDER BY expires_at LIMIT $2`, s.now(), limit)
		if err != nil {
			return fmt.Errorf("find lapsed holds: %w", err)
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("find lapsed holds: %w", err)
		}
		if len(ids) == 0 {
			return nil
		}
		// Lock order: the seats each hold lists, by (show_id, seat_id) across
		// every show, then the holds by id. end_hold then ends each one under
		// locks this transaction already holds, so the batch never takes a
		// lock out of order.
		if _, err := tx.Exec(ctx, `
			SELECT 1 FROM show_seats ss JOIN holds h ON ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
			 WHERE h.id = ANY ($1::uuid[])
			 ORDER BY ss.show_id, ss.seat_id FOR UPDATE OF ss`, ids); err != nil {
			return fmt.Errorf("lock seats: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			SELECT 1 FROM holds WHERE id = ANY ($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, ids); err != nil {
			return fmt.Errorf("lock holds: %w", err)
		}
		// Under the locks, the holds still HELD and lapsed are exactly those
		// end_hold expires; all of them at one time.
		return tx.QueryRow(ctx, `
			WITH now AS (SELECT coalesce($2::timestamptz, clock_timestamp()) AS t),
			lapsed AS MATERIALIZED (
				SELECT h.id FROM holds h, now
				 WHERE h.id = ANY ($1::uuid[]) AND h.state = 'HELD' AND h.expires_at + h.payment_grace <= now.t
				 ORDER BY h.id
			)
			SELECT count(*) FROM lapsed, now, end_hold(lapsed.id, NULL, false, now.t) e
			 WHERE e.state = 'EXPIRED'`, ids, s.now()).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("expire holds: %w", err)
	}
	return n, nil
}
