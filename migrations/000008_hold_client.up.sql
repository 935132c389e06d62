-- Seats held per client address. One address could make accounts and hold
-- every seat of a show, again each time the holds lapsed; now a hold
-- records the address it came from (client_addr: an IPv4 address, or the
-- /64 of an IPv6 one), and hold_seats refuses one that would take that
-- address past its caps: seats held (HELD, not lapsed) on the show, and
-- over all shows, whoever's accounts hold them. Then hold_seats in full.

-- NULL for a hold made before, or by a caller that names no address.
ALTER TABLE holds ADD COLUMN client_addr inet;
-- The count of an address's held seats reads only its live holds.
CREATE INDEX holds_held_client_addr_idx ON holds (client_addr) WHERE state = 'HELD';

-- Two more answers of hold_seats (postgres.holdOutcome names them too):
-- ADDRESS_SHOW_CAP, the client address would hold more seats of this show
-- than allowed (expires_at: when the soonest of its holds there lapses);
-- ADDRESS_CAP, the same over all shows.
ALTER TYPE hold_outcome ADD VALUE 'ADDRESS_SHOW_CAP';
ALTER TYPE hold_outcome ADD VALUE 'ADDRESS_CAP';

-- hold_seats takes three more arguments: the old signature goes, rather
-- than stay beside the new one as an overload without the caps.
DROP FUNCTION hold_seats(uuid, bigint, text[], interval, text, text, text, timestamptz);

-- show_seats_missing: which of p_seats (sorted, distinct) show p_show has
-- no seat for, sorted. hold_seats' UNKNOWN_SEATS answer names them, both
-- before it locks (a seat never there) and under its locks (one a layout
-- change removed meanwhile).
CREATE FUNCTION show_seats_missing(p_show bigint, p_seats text[]) RETURNS text[]
LANGUAGE sql STABLE AS $$
    SELECT ARRAY(SELECT s FROM unnest(p_seats) s
                  WHERE NOT EXISTS (SELECT 1 FROM show_seats x WHERE x.show_id = p_show AND x.seat_id = s)
                  ORDER BY s)
$$;

-- hold_seats, redefined here (000006 had it last): called by
-- postgres.(*Store).HoldSeats (internal/postgres/holds.go). What changed
-- since 000006: three more arguments, the client address and its two caps;
-- step 4 takes the address's lock before the seats' and counts what the
-- address holds; the hold records the address.
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
--   4. lock_timeout becomes p_lock_timeout; with a client address p_addr
--      and a cap, the address's advisory lock (pg_advisory_xact_lock) is
--      taken and its held seats counted: past p_addr_show_cap on this show
--      the answer is ADDRESS_SHOW_CAP, past p_addr_cap over all shows
--      ADDRESS_CAP (a NULL cap is none). Then SELECT ... ORDER BY seat_id
--      FOR UPDATE locks the seats in the global order; under the locks every
--      seat must still exist (UNKNOWN_SEATS: a layout change removed it
--      while this request waited), the show must still be scheduled
--      (UNKNOWN_SHOW: its theatre cancelled it), and every seat must be
--      AVAILABLE or held by a lapsed hold (else UNAVAILABLE); the price is
--      summed in a statement after the locks, so a price change that
--      committed meanwhile is the one charged;
--   5. the hold is inserted with its address, the seats claimed (a lapsed
--      hold's seats are taken over), their seat_events row inserted and the
--      key recorded (HELD).
--
-- Locks, in this order: the client address's advisory lock, then show_seats
-- rows (both step 4); the hold and key rows it inserts are new. Nothing
-- else takes the address lock, and it is held only to the end of this
-- function's transaction, so it cannot deadlock with any path's seat or
-- hold locks. Only from step 4 on can it wait for a lock (the address
-- lock, the row locks, and the unique indexes of step 5), so only there is
-- the wait bounded; the caller asks again after a lock timeout (55P03).
-- Decisions use p_now when the caller injects a clock, else the database
-- clock, read again after the locks are taken: a request that waited for a
-- lock judges expiry by the time it decides, not the time it started.
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
-- The user's other hold (step 3), an address past its cap and seats found
-- taken under the locks (step 4) are answered after one more look at the
-- key, in case a parallel retry of this request has just won
-- (hold_seats_conflict). Conflicts answer with an outcome, not an error,
-- except the two races only a unique index can decide (one active hold per
-- user, holds_one_active_per_user; one hold per key, hold_keys_pkey), which
-- raise 23505 for the caller to ask again. p_seats must be sorted and
-- distinct (booking.HoldRequest.Normalize). Its own seat changes are
-- recorded by its INSERT into seat_events, not by the trigger (000002).
CREATE FUNCTION hold_seats(
    p_user uuid, p_show bigint, p_seats text[], p_ttl interval,
    p_key text, p_fingerprint text, p_lock_timeout text, p_now timestamptz,
    p_addr inet, p_addr_show_cap int, p_addr_cap int
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
    v_addr     record;
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
        seat_ids := show_seats_missing(p_show, p_seats);
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
    -- The client address's lock comes first in the lock order, before any
    -- seat: two holds from one address count its seats one after the
    -- other, so both cannot pass its caps. (Its wait is bounded too.) The
    -- count is a statement after the lock: it sees every hold of the
    -- address that committed before.
    IF p_addr IS NOT NULL AND (p_addr_show_cap IS NOT NULL OR p_addr_cap IS NOT NULL) THEN
        PERFORM pg_advisory_xact_lock(hashtext('hold_seats client_addr'), hashtext(p_addr::text));
        v_now := coalesce(p_now, clock_timestamp());
        SELECT coalesce(sum(cardinality(h.seat_ids)) FILTER (WHERE h.show_id = p_show), 0) AS show_seats,
               coalesce(sum(cardinality(h.seat_ids)), 0) AS all_seats,
               min(h.expires_at) FILTER (WHERE h.show_id = p_show) AS show_frees,
               min(h.expires_at) AS all_frees
          INTO v_addr
          FROM holds h
         WHERE h.client_addr = p_addr AND h.state = 'HELD' AND h.expires_at > v_now;
        IF v_addr.show_seats + cardinality(p_seats) > p_addr_show_cap THEN
            RETURN QUERY SELECT * FROM hold_seats_conflict(p_user, p_key, p_fingerprint, v_now,
                'ADDRESS_SHOW_CAP', NULL, NULL, v_addr.show_frees);
            RETURN;
        END IF;
        IF v_addr.all_seats + cardinality(p_seats) > p_addr_cap THEN
            RETURN QUERY SELECT * FROM hold_seats_conflict(p_user, p_key, p_fingerprint, v_now,
                'ADDRESS_CAP', NULL, NULL, v_addr.all_frees);
            RETURN;
        END IF;
    END IF;
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
        seat_ids := show_seats_missing(p_show, p_seats);
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
    INSERT INTO holds (user_id, show_id, seat_ids, state, expires_at, amount_minor, currency, created_at, client_addr)
    VALUES (p_user, p_show, p_seats, 'HELD', v_now + p_ttl, v_amount, v_currency, v_now, p_addr)
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
