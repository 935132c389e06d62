-- The theatre admin's schema: what a theatre sets (the cleaning time between
-- two shows), companion seats, seat layouts that change while shows are on
-- sale (retired seats), seats a theatre blocks from sale, shows the theatre
-- cancels and what the cancellation did, who cancelled a booking, and the
-- audit log of every admin change. Then the two functions these change,
-- each in full: booking_invariant_violations and hold_seats.

-- Cleaning time between two shows on one screen: a show's ends_at is its
-- start plus the movie's runtime plus this.
ALTER TABLE theatres
    ADD COLUMN cleaning_buffer interval NOT NULL DEFAULT interval '15 minutes'
        CHECK (cleaning_buffer BETWEEN interval '0' AND interval '4 hours');

-- A companion seat sits beside an accessible one, for the person with them.
ALTER TABLE seats ADD COLUMN companion boolean NOT NULL DEFAULT false;

-- A seat the theatre took off sale (house seats, a broken seat): BLOCKED has
-- no owner. Only an admin's block and unblock move a seat into and out of
-- it, from and to AVAILABLE, in the same lock order as holds.
ALTER TABLE show_seats DROP CONSTRAINT show_seats_status_check;
ALTER TABLE show_seats ADD CONSTRAINT show_seats_status_check
    CHECK (status IN ('AVAILABLE', 'HELD', 'BOOKED', 'BLOCKED'));
ALTER TABLE show_seats DROP CONSTRAINT show_seats_check;
ALTER TABLE show_seats ADD CONSTRAINT show_seats_check CHECK (
    (status IN ('AVAILABLE', 'BLOCKED') AND hold_id IS NULL AND hold_expires_at IS NULL) OR
    (status = 'HELD' AND hold_id IS NOT NULL AND hold_expires_at IS NOT NULL) OR
    (status = 'BOOKED' AND hold_id IS NOT NULL AND hold_expires_at IS NULL)
);

-- Who cancelled a booking: its moviegoer (under the refund policy) or the
-- theatre, cancelling the show (a full refund).
ALTER TABLE bookings ADD COLUMN cancelled_by text
    CHECK (cancelled_by IN ('moviegoer', 'theatre'));
UPDATE bookings SET cancelled_by = 'moviegoer' WHERE status = 'CANCELLED';
ALTER TABLE bookings ADD CONSTRAINT bookings_cancelled_by_set
    CHECK ((status = 'CANCELLED') = (cancelled_by IS NOT NULL));

-- When the theatre cancelled the show (status CANCELLED).
ALTER TABLE shows ADD COLUMN cancelled_at timestamptz;
ALTER TABLE shows ADD CONSTRAINT shows_cancelled_at_set
    CHECK ((status = 'CANCELLED') = (cancelled_at IS NOT NULL));

-- Every admin change: who, what, when, before and after, written in the
-- transaction of the change itself (internal/postgres, admin_*.go).
-- action is <object>.<verb>, e.g. theatre.create, show.cancel.
CREATE TABLE audit_log (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at         timestamptz NOT NULL,
    actor_id   uuid NOT NULL REFERENCES users (id),
    theatre_id bigint REFERENCES theatres (id) ON DELETE SET NULL,
    action     text NOT NULL CHECK (action ~ '^[a-z]+(_[a-z]+)*[.][a-z]+(_[a-z]+)*$'),
    object     text NOT NULL CHECK (length(object) BETWEEN 1 AND 200),
    before     jsonb,
    after      jsonb
);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);
CREATE INDEX audit_log_theatre_idx ON audit_log (theatre_id, at DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, at DESC);

-- Seat layouts that change while shows are on sale (postgres.(*Store).
-- ReplaceLayout, internal/postgres/admin_layouts.go).
--
-- A seat removed from a layout leaves the upcoming shows' seats, but past
-- and cancelled shows keep their show_seats rows, which reference
-- seats (screen_id, seat_id): their tickets and reports still name the seat.
-- So a removed seat that some show still references is retired rather than
-- deleted (one nobody references is deleted). A retired seat is no part of
-- the layout: new shows do not get it, the admin does not see it, and it
-- gives up its grid cell, so the one-seat-per-cell rule counts only seats
-- in the layout. Putting the same id back into a layout revives the row.
--
-- The rule is deferrable: a layout change that swaps two seats' cells
-- writes them one row at a time, and only the end result must hold.
ALTER TABLE seats ADD COLUMN retired boolean NOT NULL DEFAULT false;
ALTER TABLE seats DROP CONSTRAINT seats_screen_id_grid_row_grid_col_key;
ALTER TABLE seats ADD CONSTRAINT seats_one_per_cell
    EXCLUDE USING btree (screen_id WITH =, grid_row WITH =, grid_col WITH =) WHERE (NOT retired)
    DEFERRABLE INITIALLY IMMEDIATE;

-- How many holds the cancellation ended and how many bookings it refunded
-- (postgres.(*Store).CancelShow, internal/postgres/admin_occupancy.go).
-- NULL for a show not cancelled by CancelShow.
ALTER TABLE shows
    ADD COLUMN cancel_holds_released int CHECK (cancel_holds_released >= 0),
    ADD COLUMN cancel_bookings_refunded int CHECK (cancel_bookings_refunded >= 0);

-- booking_invariant_violations, redefined here (000004 had it first). What
-- changed since 000004: I1 says a cancelled show sells nothing, and the I5
-- check that a hold's seats exist in its show asks only about holds whose
-- seats still matter (a live hold, or a confirmed one whose booking stands):
-- a layout change may remove a seat an ended hold once named.
-- booking_invariant_violations: called by postgres.(*Store).InvariantViolations
-- (internal/postgres/invariants.go).
--
-- Every violation of the booking invariants, one row each:
--
--   I1  a seat's state agrees with its owner: a HELD seat is listed by a
--       HELD hold of its show with the same expiry, a BOOKED seat by a
--       CONFIRMED hold and its confirmed booking; no seat is in two
--       confirmed bookings (no seat is ever sold twice); a show its theatre
--       cancelled has no HELD or BOOKED seat and no confirmed booking;
--   I2  a hold that ended unconfirmed, and a cancelled booking, own no seats;
--   I3  a BOOKED payment and its booking name each other;
--   I4  every charge that booked nothing is owed back in full, money in
--       equals bookings plus refunds of unbooked charges, and a cancelled
--       booking never refunds more than was paid;
--   I5  a hold is a sorted set of distinct seats of its show, all or
--       nothing: a live hold owns all of them, a confirmed one has them all
--       BOOKED.
--
-- An empty result is the only healthy answer. Tests run it after every
-- scenario; admins can run it on a live database (it only reads).
CREATE OR REPLACE FUNCTION booking_invariant_violations(p_now timestamptz DEFAULT NULL)
RETURNS TABLE (invariant text, detail text)
LANGUAGE sql STABLE AS $$
    -- I1: a HELD seat names a HELD hold of the same show that lists it, with its expiry.
    SELECT 'I1', format('show %s seat %s is HELD by %s in state %s', ss.show_id, ss.seat_id, ss.hold_id, h.state)
      FROM show_seats ss JOIN holds h ON h.id = ss.hold_id
     WHERE ss.status = 'HELD'
       AND (h.state <> 'HELD' OR NOT ss.seat_id = ANY (h.seat_ids) OR ss.hold_expires_at <> h.expires_at)
    UNION ALL
    -- I1: a BOOKED seat names a CONFIRMED hold whose booking is CONFIRMED and lists it.
    SELECT 'I1', format('show %s seat %s is BOOKED by hold %s without a confirmed booking', ss.show_id, ss.seat_id, ss.hold_id)
      FROM show_seats ss
      JOIN holds h ON h.id = ss.hold_id
      LEFT JOIN bookings b ON b.hold_id = h.id
     WHERE ss.status = 'BOOKED'
       AND (h.state <> 'CONFIRMED' OR b.status IS DISTINCT FROM 'CONFIRMED' OR NOT ss.seat_id = ANY (b.seat_ids))
    UNION ALL
    -- I1: every seat of a confirmed booking is BOOKED by it.
    SELECT 'I1', format('booking %s seat %s is %s (owner %s)', b.id, s.seat_id, coalesce(ss.status, 'missing'), ss.hold_id)
      FROM bookings b
      CROSS JOIN LATERAL unnest(b.seat_ids) AS s(seat_id)
      LEFT JOIN show_seats ss ON ss.show_id = b.show_id AND ss.seat_id = s.seat_id
     WHERE b.status = 'CONFIRMED' AND (ss.status IS DISTINCT FROM 'BOOKED' OR ss.hold_id <> b.hold_id)
    UNION ALL
    -- I1: no seat in two confirmed bookings.
    SELECT 'I1', format('show %s seat %s is in %s confirmed bookings', b.show_id, s.seat_id, count(*))
      FROM bookings b CROSS JOIN LATERAL unnest(b.seat_ids) AS s(seat_id)
     WHERE b.status = 'CONFIRMED'
     GROUP BY b.show_id, s.seat_id HAVING count(*) > 1
    UNION ALL
    -- I2: a terminal, unconfirmed hold owns no seats; nor does a cancelled booking's hold.
    SELECT 'I2', format('hold %s is %s but still owns show %s seat %s', h.id, h.state, ss.show_id, ss.seat_id)
      FROM show_seats ss JOIN holds h ON h.id = ss.hold_id
     WHERE h.state IN ('EXPIRED', 'CANCELLED')
    UNION ALL
    SELECT 'I2', format('booking %s is cancelled but owns show %s seat %s', b.id, ss.show_id, ss.seat_id)
      FROM show_seats ss JOIN bookings b ON b.hold_id = ss.hold_id
     WHERE b.status = 'CANCELLED'
    UNION ALL
    -- I3: a BOOKED payment is the evidence of exactly its booking.
    SELECT 'I3', format('payment %s says BOOKED but booking %s names payment %s', p.payment_id, b.id, b.payment_id)
      FROM payments p LEFT JOIN bookings b ON b.id = p.booking_id
     WHERE p.outcome = 'BOOKED' AND (b.id IS NULL OR b.payment_id <> p.payment_id OR b.hold_id <> p.hold_id)
    UNION ALL
    SELECT 'I3', format('booking %s has no BOOKED payment %s', b.id, b.payment_id)
      FROM bookings b LEFT JOIN payments p ON p.payment_id = b.payment_id
     WHERE p.outcome IS DISTINCT FROM 'BOOKED'
    UNION ALL
    -- I4: every charge that did not produce a booking is owed back in full.
    SELECT 'I4', format('payment %s (%s) has refund %s of %s', p.payment_id, p.amount_minor, r.id, r.amount_minor)
      FROM payments p LEFT JOIN refunds r ON r.payment_id = p.payment_id
     WHERE p.outcome = 'REFUND_REQUIRED' AND (r.id IS NULL OR r.amount_minor <> p.amount_minor)
    UNION ALL
    -- I4: money in = bookings + refunds owed or paid for charges that booked nothing.
    SELECT 'I4', format('payments %s <> bookings %s + refunds for unbooked charges %s', paid, booked, owed)
      FROM (SELECT (SELECT coalesce(sum(amount_minor), 0) FROM payments) AS paid,
                   (SELECT coalesce(sum(amount_minor), 0) FROM bookings) AS booked,
                   (SELECT coalesce(sum(r.amount_minor), 0) FROM refunds r
                      JOIN payments p ON p.payment_id = r.payment_id
                     WHERE p.outcome = 'REFUND_REQUIRED') AS owed) m
     WHERE paid <> booked + owed
    UNION ALL
    -- I4: a cancelled booking never refunds more than was paid.
    SELECT 'I4', format('booking %s refunds %s of %s', b.id, r.amount_minor, b.amount_minor)
      FROM bookings b JOIN refunds r ON r.booking_id = b.id
     WHERE r.amount_minor > b.amount_minor
    UNION ALL
    -- I5: a hold is a non-empty set of distinct seats of its show, sorted.
    SELECT 'I5', format('hold %s seat set %s is not a sorted set of distinct seats', h.id, h.seat_ids)
      FROM holds h
     WHERE h.seat_ids <> (SELECT array_agg(DISTINCT s ORDER BY s) FROM unnest(h.seat_ids) s)
    UNION ALL
    -- (Only a hold whose seats still matter: live, or confirmed with its
    -- booking standing. A layout change may remove a seat an ended hold
    -- once named.)
    SELECT 'I5', format('hold %s names seat %s that show %s does not have', h.id, s.seat_id, h.show_id)
      FROM holds h CROSS JOIN LATERAL unnest(h.seat_ids) AS s(seat_id)
      LEFT JOIN bookings b ON b.hold_id = h.id
     WHERE ((h.state = 'HELD' AND h.expires_at > coalesce(p_now, now()))
            OR (h.state = 'CONFIRMED' AND b.status = 'CONFIRMED'))
       AND NOT EXISTS (SELECT 1 FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.seat_id = s.seat_id)
    UNION ALL
    -- I5: nothing partial: a live hold owns all its seats; a confirmed one has them all BOOKED.
    SELECT 'I5', format('hold %s (%s) owns %s of its %s seats', h.id, h.state, owned, cardinality(h.seat_ids))
      FROM holds h
      CROSS JOIN LATERAL (SELECT count(*) AS owned FROM show_seats ss WHERE ss.hold_id = h.id) o
      LEFT JOIN bookings b ON b.hold_id = h.id
     WHERE ((h.state = 'HELD' AND h.expires_at > coalesce(p_now, now()))
            OR (h.state = 'CONFIRMED' AND b.status = 'CONFIRMED'))
       AND owned <> cardinality(h.seat_ids)
    UNION ALL
    -- I1: a cancelled show sells nothing: no seat of it is HELD or BOOKED,
    -- and none of its bookings is still confirmed.
    SELECT 'I1', format('show %s is cancelled but seat %s is %s', ss.show_id, ss.seat_id, ss.status)
      FROM show_seats ss JOIN shows sh ON sh.id = ss.show_id
     WHERE sh.status = 'CANCELLED' AND ss.status IN ('HELD', 'BOOKED')
    UNION ALL
    SELECT 'I1', format('show %s is cancelled but booking %s is confirmed', b.show_id, b.id)
      FROM bookings b JOIN shows sh ON sh.id = b.show_id
     WHERE sh.status = 'CANCELLED' AND b.status = 'CONFIRMED'
$$;

-- hold_seats, redefined here (000003 had it first): called by
-- postgres.(*Store).HoldSeats (internal/postgres/holds.go). What changed
-- since 000003: BLOCKED seats count as taken, and step 4 checks three more
-- things under the locks, for admin changes that committed while the
-- request waited (see below).
--
-- Claims p_seats of show p_show for p_user, all or nothing, and answers with
-- an outcome and, for HELD, REPLAYED and KEY_REUSED, the hold. The steps, in
-- the order the function takes them (on a hot show most requests end after
-- step 2, two statements):
--
--   1. a lock-free look at the seats: how many of them the show has, and
--      which are visibly taken (BOOKED, BLOCKED by the theatre, or HELD by a
--      hold not yet lapsed);
--   2. an Idempotency-Key seen before answers with its hold, never extended
--      (REPLAYED, or KEY_REUSED for a different request); else a visibly
--      taken seat answers UNAVAILABLE. The key comes first because a retry
--      of a request that won sees its own seats taken;
--   3. the show must be scheduled (UNKNOWN_SHOW) and not started
--      (SHOW_CLOSED), every seat must exist (UNKNOWN_SEATS), and the user
--      must have no hold marked HELD (ACTIVE_HOLD; LAPSED_HOLD for one past
--      its deadline, which the caller ends with end_hold in a transaction
--      of its own, since its seats may sort anywhere in the lock order, and
--      then asks again);
--   4. lock_timeout becomes p_lock_timeout, and SELECT ... ORDER BY seat_id
--      FOR UPDATE locks the seats in the global order; under the locks every
--      seat must still exist (UNKNOWN_SEATS: a layout change removed it
--      while this request waited), the show must still be scheduled
--      (UNKNOWN_SHOW: its theatre cancelled it), and every seat must be
--      AVAILABLE or held by a lapsed hold (else UNAVAILABLE); the price is
--      summed in a statement after the locks, so a price change that
--      committed meanwhile is the one charged;
--   5. the hold is inserted, the seats claimed (a lapsed hold's seats are
--      taken over), their seat_events row inserted and the key recorded
--      (HELD).
--
-- Locks: show_seats rows only (step 4); the hold and key rows it inserts are
-- new. Only from step 4 on can it wait for a lock (the row locks, and the
-- unique indexes of step 5), so only there is the wait bounded; the caller
-- asks again after a lock timeout (55P03). Decisions use p_now when the
-- caller injects a clock, else the database clock, read again after the
-- locks are taken: a request that waited for a lock judges expiry by the
-- time it decides, not the time it started.
--
-- Admin changes that touch a show's seats (a cancellation, a layout change,
-- a price change) lock the seats first, in the same order, and keep the
-- locks until they commit; each statement of this function reads what
-- committed before it. So once step 4 has its locks such a change is either
-- committed and seen by the checks that follow, or not yet begun and then
-- waits for these locks. A layout change deletes the upcoming shows' rows
-- of a seat it removes: FOR UPDATE skips a row deleted meanwhile, hence the
-- recount.
--
-- Step 3 reads the show's status without a lock, so a cancellation can
-- commit between it and step 4. Cancelling a show (postgres.(*Store).
-- CancelShow) locks every seat of the show before it changes anything and
-- keeps the locks until it commits, so once step 4 has its locks the
-- cancellation is either committed and visible to the next statement (each
-- statement of this function reads what committed before it), or not yet
-- begun, and then waits for these locks and ends the hold made here. Either
-- way no hold of a cancelled show survives.
--
-- The user's other hold (step 3) and seats found taken under the locks
-- (step 4) are answered after one more look at the key, in case a parallel
-- retry of this request has just won (hold_seats_conflict). Conflicts
-- answer with an outcome, not an error, except the two races only a unique
-- index can decide (one active hold per user, holds_one_active_per_user;
-- one hold per key, hold_keys_pkey), which raise 23505 for the caller to
-- ask again. p_seats must be sorted and distinct
-- (booking.HoldRequest.Normalize). Its own seat changes are recorded by its
-- INSERT into seat_events, not by the trigger (000002).
CREATE OR REPLACE FUNCTION hold_seats(
    p_user uuid, p_show bigint, p_seats text[], p_ttl interval,
    p_key text, p_fingerprint text, p_lock_timeout text, p_now timestamptz
) RETURNS TABLE (
    outcome hold_outcome, hold_id uuid, seat_ids text[], state text,
    expires_at timestamptz, amount_minor bigint, currency text, created_at timestamptz
) LANGUAGE plpgsql
SET marquee.seat_events = 'recorded'
AS $$
DECLARE
    v_now      timestamptz := coalesce(p_now, clock_timestamp());
    v_key      record;
    v_active   record;
    v_currency text;
    v_starts   timestamptz;
    v_count    int;
    v_taken    text[];
    v_amount   bigint;
BEGIN
    -- 1. The lock-free look at the seats first: on a hot show most requests
    -- end after it and the key, so they cost two statements, not five.
    SELECT count(*),
           array_agg(ss.seat_id ORDER BY ss.seat_id) FILTER (
               WHERE ss.status IN ('BOOKED', 'BLOCKED') OR (ss.status = 'HELD' AND ss.hold_expires_at > v_now))
      INTO v_count, v_taken
      FROM show_seats ss WHERE ss.show_id = p_show AND ss.seat_id = ANY (p_seats);

    -- 2. Replay: a retry of a request that won sees its own seats taken.
    SELECT k.fingerprint, k.hold_id INTO v_key
      FROM hold_keys k WHERE k.user_id = p_user AND k.key = p_key;
    IF FOUND THEN
        RETURN QUERY SELECT * FROM hold_seats_replay(v_key.fingerprint, p_fingerprint, v_key.hold_id, v_now);
        RETURN;
    END IF;
    IF v_taken IS NOT NULL THEN
        outcome := 'UNAVAILABLE'; seat_ids := v_taken; RETURN NEXT; RETURN;
    END IF;

    -- 3. The show, the seats it has, and the user.
    SELECT s.currency, s.starts_at INTO v_currency, v_starts
      FROM shows s WHERE s.id = p_show AND s.status = 'SCHEDULED';
    IF NOT FOUND THEN
        outcome := 'UNKNOWN_SHOW'; RETURN NEXT; RETURN;
    END IF;
    IF v_starts <= v_now THEN
        outcome := 'SHOW_CLOSED'; RETURN NEXT; RETURN;
    END IF;
    IF v_count < cardinality(p_seats) THEN
        outcome := 'UNKNOWN_SEATS';
        seat_ids := ARRAY(SELECT s FROM unnest(p_seats) s
                           WHERE NOT EXISTS (SELECT 1 FROM show_seats x WHERE x.show_id = p_show AND x.seat_id = s)
                           ORDER BY s);
        RETURN NEXT; RETURN;
    END IF;
    SELECT h.id, h.expires_at, h.seat_ids INTO v_active
      FROM holds h WHERE h.user_id = p_user AND h.state = 'HELD';
    IF FOUND THEN
        -- A lapsed hold still marked HELD is ended by the caller in its own
        -- transaction (its seats may sort anywhere in the lock order).
        RETURN QUERY SELECT * FROM hold_seats_conflict(p_user, p_key, p_fingerprint, v_now,
            CASE WHEN v_active.expires_at <= v_now THEN 'LAPSED_HOLD'::hold_outcome ELSE 'ACTIVE_HOLD' END,
            v_active.id, v_active.seat_ids, v_active.expires_at);
        RETURN;
    END IF;

    -- 4. Lock in the global order (show_id, seat_id) and decide. Only from
    -- here on may the function wait for a lock (the row locks, and the
    -- unique indexes of step 5), so only here is the wait bounded.
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    SELECT count(*),
           array_agg(l.seat_id ORDER BY l.seat_id) FILTER (
               WHERE l.status IN ('BOOKED', 'BLOCKED') OR (l.status = 'HELD' AND l.hold_expires_at > coalesce(p_now, clock_timestamp())))
      INTO v_count, v_taken
      FROM (SELECT ss.seat_id, ss.status, ss.hold_expires_at
              FROM show_seats ss
             WHERE ss.show_id = p_show AND ss.seat_id = ANY (p_seats)
             ORDER BY ss.seat_id
               FOR UPDATE) l;
    v_now := coalesce(p_now, clock_timestamp());
    -- A layout change (ReplaceLayout) may have removed a seat while this request
    -- waited for its lock: the locked rows are then fewer than asked for.
    IF v_count < cardinality(p_seats) THEN
        outcome := 'UNKNOWN_SEATS';
        seat_ids := ARRAY(SELECT s FROM unnest(p_seats) s
                           WHERE NOT EXISTS (SELECT 1 FROM show_seats x WHERE x.show_id = p_show AND x.seat_id = s)
                           ORDER BY s);
        RETURN NEXT; RETURN;
    END IF;
    -- Under the locks: a cancellation that committed while this request
    -- waited is seen here, and a cancelled show sells nothing.
    PERFORM 1 FROM shows s WHERE s.id = p_show AND s.status = 'SCHEDULED';
    IF NOT FOUND THEN
        outcome := 'UNKNOWN_SHOW'; RETURN NEXT; RETURN;
    END IF;
    IF v_taken IS NOT NULL THEN
        RETURN QUERY SELECT * FROM hold_seats_conflict(p_user, p_key, p_fingerprint, v_now,
            'UNAVAILABLE', NULL, v_taken, NULL);
        RETURN;
    END IF;

    -- The price, in a statement of its own after the locks: a price change
    -- (Store.SetShowPrices) locks the show's seats before it writes, so one
    -- that committed while this request waited is seen here. Summed in the
    -- locking statement, it was read from before the wait.
    SELECT sum(p.price_minor) INTO v_amount
      FROM show_seats ss JOIN show_prices p ON p.show_id = ss.show_id AND p.category = ss.category
     WHERE ss.show_id = p_show AND ss.seat_id = ANY (p_seats);

    -- 5. Claim. Seats of a lapsed hold are taken over here; that hold keeps
    -- its state until the sweeper or its own confirm ends it, and its
    -- conditional release can no longer touch these seats.
    INSERT INTO holds (user_id, show_id, seat_ids, state, expires_at, amount_minor, currency, created_at)
    VALUES (p_user, p_show, p_seats, 'HELD', v_now + p_ttl, v_amount, v_currency, v_now)
    RETURNING holds.id INTO hold_id;

    UPDATE show_seats ss
       SET status = 'HELD', hold_id = hold_seats.hold_id, hold_expires_at = v_now + p_ttl
     WHERE ss.show_id = p_show AND ss.seat_id = ANY (p_seats);
    INSERT INTO seat_events (show_id, seat_ids) VALUES (p_show, p_seats);

    INSERT INTO hold_keys (user_id, key, fingerprint, hold_id, created_at)
    VALUES (p_user, p_key, p_fingerprint, hold_seats.hold_id, v_now);

    outcome := 'HELD'; seat_ids := p_seats; state := 'HELD'; expires_at := v_now + p_ttl;
    amount_minor := v_amount; currency := v_currency; created_at := v_now;
    RETURN NEXT;
END $$;
