-- The theatre admin's schema: what a theatre sets (the cleaning time between
-- two shows), companion seats, seats a theatre blocks from sale, shows the
-- theatre cancels, and the audit log of every admin change.

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

-- hold_seats, redefined here (000003 had it first; only the seats it counts as
-- taken change): called by postgres.(*Store).HoldSeats (internal/postgres/holds.go).
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
--      FOR UPDATE locks the seats in the global order; under the locks the
--      show must still be scheduled (UNKNOWN_SHOW: its theatre cancelled it
--      while this request waited, see below) and every seat must be
--      AVAILABLE or held by a lapsed hold (else UNAVAILABLE);
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
               WHERE l.status IN ('BOOKED', 'BLOCKED') OR (l.status = 'HELD' AND l.hold_expires_at > coalesce(p_now, clock_timestamp()))),
           sum(p.price_minor)
      INTO v_count, v_taken, v_amount
      FROM (SELECT ss.seat_id, ss.status, ss.hold_expires_at, ss.category
              FROM show_seats ss
             WHERE ss.show_id = p_show AND ss.seat_id = ANY (p_seats)
             ORDER BY ss.seat_id
               FOR UPDATE) l
      JOIN show_prices p ON p.show_id = p_show AND p.category = l.category;
    v_now := coalesce(p_now, clock_timestamp());
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
