-- The functions that change seats on the request path: taking a hold and
-- ending one. Each runs as one statement, one round trip, and takes its row
-- locks in the store's global order: show_seats rows by (show_id, seat_id),
-- then holds rows (internal/postgres).

-- What hold_seats answers. The store's Go side names the same labels
-- (postgres.holdOutcome, internal/postgres/holds.go; a test compares the
-- two), and the type makes the functions unable to answer anything else.
CREATE TYPE hold_outcome AS ENUM (
    'HELD',          -- the seats are the caller's, under the returned hold
    'REPLAYED',      -- the key was seen before: its hold, as it is now
    'KEY_REUSED',    -- the key was seen before with another request
    'UNKNOWN_SHOW',  -- no scheduled show has this id
    'SHOW_CLOSED',   -- the show has started
    'UNKNOWN_SEATS', -- the show has no such seats (seat_ids names them)
    'UNAVAILABLE',   -- seats are taken (seat_ids names them)
    'ACTIVE_HOLD',   -- the user has a live hold already (hold_id, seat_ids, expires_at)
    'LAPSED_HOLD'    -- the same, but that hold has lapsed: end it and ask again
);

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
CREATE FUNCTION hold_seats(
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

-- hold_seats_replay: called by hold_seats and hold_seats_conflict.
--
-- The answer to a key seen before: the same hold whatever its state now, with
-- a lapsed HELD hold reported as EXPIRED; a different request is refused.
CREATE FUNCTION hold_seats_replay(p_stored text, p_fingerprint text, p_hold uuid, p_now timestamptz)
RETURNS TABLE (
    outcome hold_outcome, hold_id uuid, seat_ids text[], state text,
    expires_at timestamptz, amount_minor bigint, currency text, created_at timestamptz
) LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN p_stored = p_fingerprint THEN 'REPLAYED'::hold_outcome ELSE 'KEY_REUSED' END,
           h.id, h.seat_ids,
           CASE WHEN h.state = 'HELD' AND h.expires_at <= p_now THEN 'EXPIRED' ELSE h.state END,
           h.expires_at, h.amount_minor, h.currency, h.created_at
      FROM holds h WHERE h.id = p_hold
$$;

-- hold_seats_conflict: called by hold_seats.
--
-- A conflict may be our own retry that a parallel request with the same key
-- has just won: look at the key once more (each statement of a volatile
-- function sees what committed before it) before answering with the conflict.
CREATE FUNCTION hold_seats_conflict(
    p_user uuid, p_key text, p_fingerprint text, p_now timestamptz,
    p_outcome hold_outcome, p_hold uuid, p_seats text[], p_expires timestamptz
) RETURNS TABLE (
    outcome hold_outcome, hold_id uuid, seat_ids text[], state text,
    expires_at timestamptz, amount_minor bigint, currency text, created_at timestamptz
) LANGUAGE plpgsql AS $$
DECLARE
    v_key record;
BEGIN
    SELECT k.fingerprint, k.hold_id INTO v_key
      FROM hold_keys k WHERE k.user_id = p_user AND k.key = p_key;
    IF FOUND THEN
        RETURN QUERY SELECT * FROM hold_seats_replay(v_key.fingerprint, p_fingerprint, v_key.hold_id, p_now);
        RETURN;
    END IF;
    RETURN QUERY SELECT p_outcome, p_hold, p_seats, NULL::text, p_expires, NULL::bigint, NULL::text, NULL::timestamptz;
END $$;

-- end_hold: called through postgres.endHoldOn (internal/postgres/holds.go) by
-- (*Store).CancelHold, by HoldSeats for the user's lapsed hold in its way,
-- by ConfirmPayment for a lapsed hold paid too late, and by ExpireHolds for
-- each lapsed hold of the sweeper's batch: the one place that ends a hold.
--
-- Ends hold p_hold if it is HELD: as EXPIRED once it has lapsed (even when
-- cancelling), else as CANCELLED when p_cancel is set. p_user, when not
-- NULL, must own the hold: another user's hold is not found. No row comes
-- back for a hold that is not found; otherwise the hold as it is afterwards.
-- The steps:
--
--   1. read the hold without locks; one that is not HELD comes back as it is;
--   2. lock its seats in the global order (show_id, seat_id), then the hold
--      (FOR NO KEY UPDATE), and decide again under the locks, by p_now or
--      else the database clock. A caller inside a transaction that already
--      holds these locks (ConfirmPayment, ExpireHolds) takes nothing new;
--   3. release only the seats the hold still owns (HELD by it): a seat a
--      newer hold took over after this one lapsed stays its new owner's, and
--      a BOOKED seat is never touched; insert their seat_events row (the
--      trigger skips this function's statements, 000002);
--   4. set the hold's state and ended_at.
CREATE FUNCTION end_hold(p_hold uuid, p_user uuid, p_cancel boolean, p_now timestamptz)
RETURNS SETOF holds LANGUAGE plpgsql
SET marquee.seat_events = 'recorded'
AS $$
DECLARE
    h      holds%ROWTYPE;
    v_now  timestamptz;
    v_next text;
    v_released text[]; -- the seats the hold still owned, now released
BEGIN
    SELECT * INTO h FROM holds WHERE holds.id = p_hold;
    IF NOT FOUND OR (p_user IS NOT NULL AND h.user_id <> p_user) THEN
        RETURN;
    END IF;
    IF h.state <> 'HELD' THEN
        RETURN NEXT h; RETURN;
    END IF;

    -- Lock order: the hold's seats by (show_id, seat_id), then the hold.
    PERFORM 1 FROM show_seats ss
      WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
      ORDER BY ss.seat_id FOR UPDATE;
    SELECT * INTO h FROM holds WHERE holds.id = p_hold FOR NO KEY UPDATE;
    v_now := coalesce(p_now, clock_timestamp());
    IF h.state = 'HELD' THEN
        IF h.expires_at <= v_now THEN
            v_next := 'EXPIRED';
        ELSIF p_cancel THEN
            v_next := 'CANCELLED';
        END IF;
    END IF;
    IF v_next IS NOT NULL THEN
        WITH released AS (
            UPDATE show_seats ss
               SET status = 'AVAILABLE', hold_id = NULL, hold_expires_at = NULL
             WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
               AND ss.hold_id = p_hold AND ss.status = 'HELD'
            RETURNING ss.seat_id
        )
        SELECT array_agg(seat_id) INTO v_released FROM released;
        IF v_released IS NOT NULL THEN
            INSERT INTO seat_events (show_id, seat_ids) VALUES (h.show_id, v_released);
        END IF;
        UPDATE holds SET state = v_next, ended_at = v_now WHERE holds.id = p_hold
        RETURNING * INTO h;
    END IF;
    RETURN NEXT h;
END $$;
