package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/waitroom"
)

// lazyCommit, selected in a statement of its own implicit transaction,
// lets that transaction commit without waiting for its WAL to reach the
// disk: for writes a crash may lose at no cost (a queue join, a ticket
// seen), not for anything a booking depends on.
const lazyCommit = `set_config('synchronous_commit', 'off', true)`

// rateWindow is the window the achieved admission rate is measured over,
// and minRateWindow the least of it before the rate is believed.
const (
	rateWindow    = time.Minute
	minRateWindow = 10 * time.Second
)

// RoomEnabled says whether showID's waiting room is on.
func (s *Store) RoomEnabled(ctx context.Context, showID int64) (bool, error) {
	var on bool
	err := s.pool.QueryRow(ctx, `SELECT coalesce((SELECT enabled FROM waiting_rooms WHERE show_id = $1), false)`, showID).Scan(&on)
	if err != nil {
		return false, fmt.Errorf("read waiting room of show %d: %w", showID, err)
	}
	return on, nil
}

// EnabledRooms returns the shows whose waiting rooms are on.
func (s *Store) EnabledRooms(ctx context.Context) ([]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT show_id FROM waiting_rooms WHERE enabled ORDER BY show_id`)
	if err != nil {
		return nil, fmt.Errorf("list waiting rooms: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("list waiting rooms: %w", err)
	}
	return ids, nil
}

// Room reads showID's waiting room: its settings, its front and its
// counts. A show that never had one reads as a room switched off;
// booking.ErrNotFound for no such show.
func (s *Store) Room(ctx context.Context, showID int64) (waitroom.Room, error) {
	r := waitroom.Room{ShowID: showID}
	var (
		exists, open bool
		opensAt      *time.Time
		recent       int
		window       time.Duration
		enabled      *bool
		rate, maxAct *int
	)
	err := s.pool.QueryRow(ctx, `
		WITH clock AS (SELECT coalesce($2::timestamptz, now()) AS now)
		SELECT EXISTS (SELECT 1 FROM shows WHERE id = $1), w.enabled, w.admit_per_minute, w.max_active, w.opens_at,
		       w.opened_at IS NOT NULL, coalesce(w.through, 0),
		       (SELECT count(*) FROM queue_tickets q WHERE q.show_id = $1 AND q.state = 'WAITING'),
		       (SELECT count(*) FROM queue_tickets q WHERE q.show_id = $1 AND q.state = 'ADMITTED'),
		       (SELECT count(*) FROM queue_tickets q WHERE q.show_id = $1 AND q.admitted_at IS NOT NULL),
		       (SELECT count(*) FROM queue_tickets q WHERE q.show_id = $1 AND q.admitted_at > c.now - $3::interval),
		       least($3::interval, c.now - coalesce(w.opened_at, c.now))
		  FROM clock c LEFT JOIN waiting_rooms w ON w.show_id = $1`,
		showID, s.now(), rateWindow).Scan(&exists, &enabled, &rate, &maxAct, &opensAt, &open, &r.Through,
		&r.Waiting, &r.Active, &r.AdmittedTotal, &recent, &window)
	if err != nil {
		return r, fmt.Errorf("read waiting room of show %d: %w", showID, err)
	}
	if !exists {
		return r, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if enabled != nil {
		r.Enabled, r.AdmitPerMinute, r.MaxActive = *enabled, *rate, *maxAct
	}
	if opensAt != nil {
		r.OpensAt = *opensAt
	}
	r.Open = open
	r.PerMinute = waitroom.Rate(r.AdmitPerMinute, recent, window, minRateWindow)
	return r, nil
}

// SetRoom stores showID's room settings. Switching a room off admits
// everyone waiting in it (they may go on at once); switching it on again
// keeps its queue. A new opening time reopens a room not yet open.
func (s *Store) SetRoom(ctx context.Context, showID int64, set waitroom.Settings, ttl time.Duration, entry audit.Entry) error {
	var opensAt *time.Time
	if !set.OpensAt.IsZero() {
		opensAt = &set.OpensAt
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO waiting_rooms (show_id, enabled, admit_per_minute, max_active, opens_at, updated_at)
			SELECT id, $2, $3, $4, $5, coalesce($6::timestamptz, now()) FROM shows WHERE id = $1
			ON CONFLICT (show_id) DO UPDATE SET enabled = EXCLUDED.enabled,
			       admit_per_minute = EXCLUDED.admit_per_minute, max_active = EXCLUDED.max_active,
			       opens_at = EXCLUDED.opens_at, updated_at = EXCLUDED.updated_at`,
			showID, set.Enabled, set.AdmitPerMinute, set.MaxActive, opensAt, s.now())
		if err != nil {
			return fmt.Errorf("store waiting room of show %d: %w", showID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
		}
		// With no opening ahead the room opens now: the first to come get
		// their places at once, not at the next step.
		if _, err := tx.Exec(ctx, `
			UPDATE waiting_rooms SET opened_at = c.now
			  FROM (SELECT coalesce($2::timestamptz, now()) AS now) c
			 WHERE show_id = $1 AND enabled AND opened_at IS NULL AND (opens_at IS NULL OR opens_at <= c.now)
			   AND NOT EXISTS (SELECT 1 FROM queue_tickets q WHERE q.show_id = $1 AND q.state = 'WAITING')`,
			showID, s.now()); err != nil {
			return fmt.Errorf("open waiting room of show %d: %w", showID, err)
		}
		if !set.Enabled {
			if _, err := tx.Exec(ctx, `
				UPDATE queue_tickets SET state = 'ADMITTED', admitted_at = c.now, active_until = c.now + $2::interval
				  FROM (SELECT coalesce($3::timestamptz, now()) AS now) c
				 WHERE show_id = $1 AND state = 'WAITING'`, showID, ttl, s.now()); err != nil {
				return fmt.Errorf("admit the waiting of show %d: %w", showID, err)
			}
			if err := announceStep(ctx, tx, waitroom.Front{ShowID: showID, Open: true, Through: 1 << 62}); err != nil {
				return err
			}
		}
		return s.insertAudit(ctx, tx, entry)
	})
}

// JoinQueue gives a new ticket in showID's room, numbered behind everyone
// if the room is open, unnumbered in its pre-queue if not. ok is false
// when the room is off: there is nothing to queue for.
//
// Its commit does not wait for the disk (see lazyCommit): a join lost to
// a crash is a person who joins again. One statement: the room's row is
// the queue's lock, held from taking the
// number to the commit, so joins and the step that shuffles the pre-queue
// take turns on it, and arrival, stamped under it (clock_timestamp, not
// the statement's start), follows the numbers.
func (s *Store) JoinQueue(ctx context.Context, showID int64) (t waitroom.Ticket, ok bool, err error) {
	var number *int64
	err = s.pool.QueryRow(ctx, `
		WITH lazy AS (SELECT `+lazyCommit+`),
		room AS (
			UPDATE waiting_rooms SET last_number = last_number + (opened_at IS NOT NULL)::int
			 WHERE show_id = $1 AND enabled
			RETURNING CASE WHEN opened_at IS NOT NULL THEN last_number END AS number)
		INSERT INTO queue_tickets (show_id, number, state, joined_at, seen_at)
		SELECT $1, room.number, 'WAITING', coalesce($2::timestamptz, clock_timestamp()), coalesce($2::timestamptz, clock_timestamp())
		  FROM room, lazy
		RETURNING id, number`, showID, s.now()).Scan(&t.ID, &number)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, false, nil
	}
	if err != nil {
		return t, false, fmt.Errorf("join the queue of show %d: %w", showID, err)
	}
	t.ShowID, t.State = showID, waitroom.Waiting
	if number != nil {
		t.Number = *number
	}
	return t, true, nil
}

// SeeTicket reads ticket id of showID, and marks a waiting one seen now:
// its holder is still there. booking.ErrNotFound for none.
func (s *Store) SeeTicket(ctx context.Context, showID, id int64) (waitroom.Ticket, error) {
	t := waitroom.Ticket{ID: id, ShowID: showID}
	var (
		number *int64
		until  *time.Time
		user   *string
	)
	// Seen within the last minute is seen enough: most reads then write
	// nothing, and what they write need not wait for the disk.
	err := s.pool.QueryRow(ctx, `
		WITH seen AS (
			UPDATE queue_tickets SET seen_at = coalesce($3::timestamptz, now())
			  FROM (SELECT `+lazyCommit+`) lazy
			 WHERE id = $1 AND show_id = $2 AND state = 'WAITING'
			   AND seen_at < coalesce($3::timestamptz, now()) - interval '1 minute')
		SELECT number, state, active_until, user_id::text FROM queue_tickets WHERE id = $1 AND show_id = $2`,
		id, showID, s.now()).Scan(&number, &t.State, &until, &user)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, fmt.Errorf("ticket %d of show %d: %w", id, showID, booking.ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("read ticket %d: %w", id, err)
	}
	if number != nil {
		t.Number = *number
	}
	if until != nil {
		t.ActiveUntil = *until
	}
	if user != nil {
		t.UserID = *user
	}
	return t, nil
}

// SeeTickets marks waiting tickets seen now: their pages are open.
func (s *Store) SeeTickets(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `
		UPDATE queue_tickets SET seen_at = coalesce($2::timestamptz, now())
		 WHERE id = ANY($1) AND state = 'WAITING'`, ids, s.now()); err != nil {
		return fmt.Errorf("mark %d tickets seen: %w", len(ids), err)
	}
	return nil
}

// UseTicket lets userID shop with ticket id of showID: the ticket must be
// admitted and active now, and either unused or used by userID already
// (the first account that holds with a ticket is the only one it admits).
// waitroom.ErrQueueRequired otherwise.
func (s *Store) UseTicket(ctx context.Context, showID, id int64, userID string) error {
	tag, err := s.pool.Exec(ctx, `
		UPDATE queue_tickets SET user_id = $3
		 WHERE id = $1 AND show_id = $2 AND state = 'ADMITTED' AND active_until > coalesce($4::timestamptz, now())
		   AND (user_id IS NULL OR user_id = $3)`, id, showID, userID, s.now())
	if err != nil {
		return fmt.Errorf("use ticket %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return waitroom.ErrQueueRequired
	}
	return nil
}

// ExtendAdmission keeps userID's admission to showID active at least until
// until: the end of the hold it just made.
func (s *Store) ExtendAdmission(ctx context.Context, showID int64, userID string, until time.Time) error {
	if _, err := s.pool.Exec(ctx, `
		UPDATE queue_tickets SET active_until = greatest(active_until, $3)
		 WHERE show_id = $1 AND user_id = $2 AND state = 'ADMITTED'`, showID, userID, until); err != nil {
		return fmt.Errorf("extend the admission to show %d: %w", showID, err)
	}
	return nil
}

// ShortenAdmission ends userID's admission to showID by within from now at
// the latest: they released their hold, and have that long to choose
// other seats.
func (s *Store) ShortenAdmission(ctx context.Context, showID int64, userID string, within time.Duration) error {
	if _, err := s.pool.Exec(ctx, `
		UPDATE queue_tickets SET active_until = least(active_until, coalesce($4::timestamptz, now()) + $3::interval)
		 WHERE show_id = $1 AND user_id = $2 AND state = 'ADMITTED'`, showID, userID, within, s.now()); err != nil {
		return fmt.Errorf("shorten the admission to show %d: %w", showID, err)
	}
	return nil
}

// StepRoom takes one admission step in showID's room, if no other instance
// is taking one (ran false then): a lock of the room's admitter, taken
// without waiting, makes one at a time, whatever the instances.
//
//  1. At or after the opening, the pre-queue is numbered: those who came
//     before the opening in a random order, those after in arrival order
//     behind them.
//  2. Admissions that ended are closed (DONE): a booking by the account
//     admitted, or past active_until (unused past its TTL, a lapsed hold, a
//     release). Waiting tickets unseen past waitroom.SeenTimeout EXPIRE.
//  3. The rate earns credit for the time since the last step (at most two
//     seconds' worth, so a pause never bursts), and the lowest numbers
//     waiting are admitted, as many as the credit and the cap allow.
//  4. The front is stored and announced on waitroom.Channel, committed with
//     the step.
func (s *Store) StepRoom(ctx context.Context, showID int64, ttl time.Duration) (step waitroom.Front, ran bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var (
			enabled           bool
			rate, maxActive   int
			opensAt, openedAt *time.Time
			steppedAt         *time.Time
			last, through     int64
			credit            float64
			now               time.Time
		)
		// One admitter at a time, whatever the instances: the others
		// skip this step. Then the room's row, waited for: joins hold it
		// a moment each, and the step must number the pre-queue with
		// no join between.
		var mine bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtext('waiting_room'), hashtext($1::bigint::text))`,
			showID).Scan(&mine); err != nil {
			return fmt.Errorf("take the admitter's lock of show %d: %w", showID, err)
		}
		if !mine {
			return nil
		}
		err := tx.QueryRow(ctx, `
			SELECT enabled, admit_per_minute, max_active, opens_at, opened_at, stepped_at, last_number, through, credit,
			       coalesce($2::timestamptz, now())
			  FROM waiting_rooms WHERE show_id = $1 FOR UPDATE`, showID, s.now()).
			Scan(&enabled, &rate, &maxActive, &opensAt, &openedAt, &steppedAt, &last, &through, &credit, &now)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("lock waiting room of show %d: %w", showID, err)
		}
		ran = true
		step = waitroom.Front{ShowID: showID, Enabled: enabled}
		if !enabled {
			return nil
		}
		if openedAt == nil && (opensAt == nil || !now.Before(*opensAt)) {
			// Everyone who came before the opening in a random order,
			// then the rest as they came. The room's lock keeps joins out.
			var numbered int64
			if err := tx.QueryRow(ctx, `
				WITH pre AS (
					SELECT id, row_number() OVER (
					         ORDER BY joined_at >= coalesce($3::timestamptz, '-infinity'),
					                  CASE WHEN joined_at < $3::timestamptz THEN random() END, joined_at, id) AS rn
					  FROM queue_tickets WHERE show_id = $1 AND state = 'WAITING' AND number IS NULL),
				numbered AS (
					UPDATE queue_tickets q SET number = $2 + pre.rn FROM pre WHERE q.id = pre.id RETURNING 1)
				SELECT count(*) FROM numbered`, showID, last, opensAt).Scan(&numbered); err != nil {
				return fmt.Errorf("number the pre-queue of show %d: %w", showID, err)
			}
			last += numbered
			openedAt = &now
		} else if openedAt != nil {
			// Tickets of a pre-queue whose opening an admin took away, or
			// brought forward past a step: behind everyone, as they came.
			var numbered int64
			if err := tx.QueryRow(ctx, `
				WITH pre AS (
					SELECT id, row_number() OVER (ORDER BY joined_at, id) AS rn
					  FROM queue_tickets WHERE show_id = $1 AND state = 'WAITING' AND number IS NULL),
				numbered AS (
					UPDATE queue_tickets q SET number = $2 + pre.rn FROM pre WHERE q.id = pre.id RETURNING 1)
				SELECT count(*) FROM numbered`, showID, last).Scan(&numbered); err != nil {
				return fmt.Errorf("number late tickets of show %d: %w", showID, err)
			}
			last += numbered
		}
		if _, err := tx.Exec(ctx, `
			UPDATE queue_tickets t SET state = 'DONE', ended_at = $2
			 WHERE t.show_id = $1 AND t.state = 'ADMITTED'
			   AND (t.active_until <= $2
			        OR (t.user_id IS NOT NULL AND EXISTS (
			              SELECT 1 FROM bookings b
			               WHERE b.user_id = t.user_id AND b.show_id = t.show_id AND b.created_at >= t.admitted_at)))`,
			showID, now); err != nil {
			return fmt.Errorf("end admissions to show %d: %w", showID, err)
		}
		if _, err := tx.Exec(ctx, `
			UPDATE queue_tickets SET state = 'EXPIRED', ended_at = $2
			 WHERE show_id = $1 AND state = 'WAITING' AND seen_at <= $2::timestamptz - $3::interval`,
			showID, now, waitroom.SeenTimeout); err != nil {
			return fmt.Errorf("expire unseen tickets of show %d: %w", showID, err)
		}
		var active int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM queue_tickets WHERE show_id = $1 AND state = 'ADMITTED'`,
			showID).Scan(&active); err != nil {
			return fmt.Errorf("count admissions to show %d: %w", showID, err)
		}
		perSecond := float64(rate) / 60
		if steppedAt != nil && now.After(*steppedAt) {
			credit += perSecond * now.Sub(*steppedAt).Seconds()
		}
		credit = min(credit, max(1, 2*perSecond))
		if n := min(int(credit), maxActive-active); n > 0 && openedAt != nil {
			var admitted int
			if err := tx.QueryRow(ctx, `
				WITH next AS (
					SELECT id FROM queue_tickets
					 WHERE show_id = $1 AND state = 'WAITING' AND number IS NOT NULL ORDER BY number LIMIT $2),
				admitted AS (
					UPDATE queue_tickets q SET state = 'ADMITTED', admitted_at = $3::timestamptz, active_until = $3::timestamptz + $4::interval
					  FROM next WHERE q.id = next.id RETURNING 1)
				SELECT count(*) FROM admitted`, showID, n, now, ttl).Scan(&admitted); err != nil {
				return fmt.Errorf("admit to show %d: %w", showID, err)
			}
			credit -= float64(admitted)
		}
		var recent int
		if err := tx.QueryRow(ctx, `
			SELECT coalesce((SELECT min(number) - 1 FROM queue_tickets
			                  WHERE show_id = $1 AND state = 'WAITING' AND number IS NOT NULL), $2),
			       (SELECT count(*) FROM queue_tickets WHERE show_id = $1 AND admitted_at > $3::timestamptz - $4::interval)`,
			showID, last, now, rateWindow).Scan(&through, &recent); err != nil {
			return fmt.Errorf("read the front of show %d: %w", showID, err)
		}
		if _, err := tx.Exec(ctx, `
			UPDATE waiting_rooms SET last_number = $2, through = $3, credit = $4, stepped_at = $5, opened_at = $6
			 WHERE show_id = $1`, showID, last, through, credit, now, openedAt); err != nil {
			return fmt.Errorf("store the step of show %d: %w", showID, err)
		}
		step.Open = openedAt != nil
		step.Through = through
		window := rateWindow
		if openedAt != nil {
			window = min(window, now.Sub(*openedAt))
		}
		step.PerMinute = waitroom.Rate(rate, recent, window, minRateWindow)
		return announceStep(ctx, tx, step)
	})
	return step, ran, err
}

// announceStep sends step to every instance's listener when tx commits.
func announceStep(ctx context.Context, tx pgx.Tx, step waitroom.Front) error {
	payload, err := json.Marshal(step)
	if err != nil {
		return fmt.Errorf("encode queue step: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, waitroom.Channel, string(payload)); err != nil {
		return fmt.Errorf("announce queue step of show %d: %w", step.ShowID, err)
	}
	return nil
}

// RoomFront reads where showID's room stands, as a step announces it: a
// waiter's status needs only that. A show without a room reads as one
// switched off.
func (s *Store) RoomFront(ctx context.Context, showID int64) (waitroom.Front, error) {
	step := waitroom.Front{ShowID: showID}
	var (
		rate   int
		recent int
		window time.Duration
	)
	err := s.pool.QueryRow(ctx, `
		WITH clock AS (SELECT coalesce($2::timestamptz, now()) AS now)
		SELECT w.enabled, w.opened_at IS NOT NULL, w.through, w.admit_per_minute,
		       (SELECT count(*) FROM queue_tickets q WHERE q.show_id = $1 AND q.admitted_at > c.now - $3::interval),
		       least($3::interval, c.now - coalesce(w.opened_at, c.now))
		  FROM waiting_rooms w, clock c WHERE w.show_id = $1`,
		showID, s.now(), rateWindow).Scan(&step.Enabled, &step.Open, &step.Through, &rate, &recent, &window)
	if errors.Is(err, pgx.ErrNoRows) {
		return step, nil
	}
	if err != nil {
		return step, fmt.Errorf("read the front of show %d: %w", showID, err)
	}
	step.PerMinute = waitroom.Rate(rate, recent, window, minRateWindow)
	return step, nil
}
