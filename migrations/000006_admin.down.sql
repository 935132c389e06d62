-- Undoes 000006: hold_seats as 000003 defined it and
-- booking_invariant_violations as 000004 did, then the schema, newest part
-- first. Retired seats still referenced by past shows cannot be deleted,
-- and would make the old unique grid rule fail where a new seat took their
-- cell: the down file then stops with that error rather than lose a past
-- show's seats.

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
    SELECT 'I5', format('hold %s names seat %s that show %s does not have', h.id, s.seat_id, h.show_id)
      FROM holds h CROSS JOIN LATERAL unnest(h.seat_ids) AS s(seat_id)
     WHERE NOT EXISTS (SELECT 1 FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.seat_id = s.seat_id)
    UNION ALL
    -- I5: nothing partial: a live hold owns all its seats; a confirmed one has them all BOOKED.
    SELECT 'I5', format('hold %s (%s) owns %s of its %s seats', h.id, h.state, owned, cardinality(h.seat_ids))
      FROM holds h
      CROSS JOIN LATERAL (SELECT count(*) AS owned FROM show_seats ss WHERE ss.hold_id = h.id) o
      LEFT JOIN bookings b ON b.hold_id = h.id
     WHERE ((h.state = 'HELD' AND h.expires_at > coalesce(p_now, now()))
            OR (h.state = 'CONFIRMED' AND b.status = 'CONFIRMED'))
       AND owned <> cardinality(h.seat_ids)
$$;

-- hold_seats: called by postgres.(*Store).HoldSeats (internal/postgres/holds.go).
--
-- Claims p_seats of show p_show for p_user, all or nothing, and answers with
-- an outcome and, for HELD, REPLAYED and KEY_REUSED, the hold. The steps, in
-- the order the function takes them (on a hot show most requests end after
-- step 2, two statements):
--
--   1. a lock-free look at the seats: how many of them the show has, and
--      which are visibly taken (BOOKED, or HELD by a hold not yet lapsed);
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
--      seat must be AVAILABLE or held by a lapsed hold (else UNAVAILABLE);
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
               WHERE ss.status = 'BOOKED' OR (ss.status = 'HELD' AND ss.hold_expires_at > v_now))
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
               WHERE l.status = 'BOOKED' OR (l.status = 'HELD' AND l.hold_expires_at > coalesce(p_now, clock_timestamp()))),
           sum(p.price_minor)
      INTO v_count, v_taken, v_amount
      FROM (SELECT ss.seat_id, ss.status, ss.hold_expires_at, ss.category
              FROM show_seats ss
             WHERE ss.show_id = p_show AND ss.seat_id = ANY (p_seats)
             ORDER BY ss.seat_id
               FOR UPDATE) l
      JOIN show_prices p ON p.show_id = p_show AND p.category = l.category;
    v_now := coalesce(p_now, clock_timestamp());
    IF v_taken IS NOT NULL THEN
        RETURN QUERY SELECT * FROM hold_seats_conflict(p_user, p_key, p_fingerprint, v_now,
            'UNAVAILABLE', NULL, v_taken, NULL);
        RETURN;
    END IF;

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

ALTER TABLE shows DROP COLUMN cancel_bookings_refunded, DROP COLUMN cancel_holds_released;

DELETE FROM seats st WHERE st.retired
   AND NOT EXISTS (SELECT 1 FROM show_seats ss WHERE ss.screen_id = st.screen_id AND ss.seat_id = st.seat_id);
ALTER TABLE seats DROP CONSTRAINT seats_one_per_cell;
ALTER TABLE seats ADD CONSTRAINT seats_screen_id_grid_row_grid_col_key UNIQUE (screen_id, grid_row, grid_col);
ALTER TABLE seats DROP COLUMN retired;

DROP TABLE IF EXISTS audit_log;
ALTER TABLE shows DROP CONSTRAINT IF EXISTS shows_cancelled_at_set;
ALTER TABLE shows DROP COLUMN IF EXISTS cancelled_at;
ALTER TABLE bookings DROP CONSTRAINT IF EXISTS bookings_cancelled_by_set;
ALTER TABLE bookings DROP COLUMN IF EXISTS cancelled_by;
-- A blocked seat is on sale again under the old schema.
UPDATE show_seats SET status = 'AVAILABLE' WHERE status = 'BLOCKED';
ALTER TABLE show_seats DROP CONSTRAINT show_seats_check;
ALTER TABLE show_seats ADD CONSTRAINT show_seats_check CHECK (
    (status = 'AVAILABLE' AND hold_id IS NULL AND hold_expires_at IS NULL) OR
    (status = 'HELD' AND hold_id IS NOT NULL AND hold_expires_at IS NOT NULL) OR
    (status = 'BOOKED' AND hold_id IS NOT NULL AND hold_expires_at IS NULL)
);
ALTER TABLE show_seats DROP CONSTRAINT show_seats_status_check;
ALTER TABLE show_seats ADD CONSTRAINT show_seats_status_check
    CHECK (status IN ('AVAILABLE', 'HELD', 'BOOKED'));
ALTER TABLE seats DROP COLUMN IF EXISTS companion;
ALTER TABLE theatres DROP COLUMN IF EXISTS cleaning_buffer;
