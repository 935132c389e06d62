-- The amount of a hold in one function of its own, hold_amount, which
-- hold_seats calls once it holds the seats' locks: what a hold costs (the
-- seats' prices today; a fee per seat or a discount tomorrow) is decided
-- there alone, and a change of it redefines that function, not hold_seats.

-- hold_amount: called by hold_seats under the locks of p_seats.
--
-- The sum of the prices of seats p_seats of show p_show, each by its seat
-- category (show_prices), in the show's currency's minor units.
CREATE FUNCTION hold_amount(p_show bigint, p_seats text[]) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT sum(p.price_minor)
      FROM show_seats ss JOIN show_prices p ON p.show_id = ss.show_id AND p.category = ss.category
     WHERE ss.show_id = p_show AND ss.seat_id = ANY (p_seats)
$$;

-- hold_seats, redefined here (000009 had it last): called by
-- postgres.(*Store).HoldSeats (internal/postgres/holds.go). What changed
-- since 000009: the amount comes from hold_amount. The rest, its steps and
-- its lock order, are 000009's (read in migrations/schema.sql).
CREATE OR REPLACE FUNCTION hold_seats(
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
    SELECT h.id, h.expires_at + h.payment_grace AS lets_go_at, h.seat_ids INTO v_active
      FROM holds h WHERE h.user_id = p_user AND h.state = 'HELD';
    IF FOUND THEN
        -- A lapsed hold still marked HELD is ended by the caller in its own
        -- transaction (its seats may sort anywhere in the lock order).
        RETURN QUERY SELECT * FROM hold_seats_conflict(p_user, p_key, p_fingerprint, v_now,
            CASE WHEN v_active.lets_go_at <= v_now THEN 'LAPSED_HOLD'::hold_outcome ELSE 'ACTIVE_HOLD' END,
            v_active.id, v_active.seat_ids, v_active.lets_go_at);
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
               min(h.expires_at + h.payment_grace) FILTER (WHERE h.show_id = p_show) AS show_frees,
               min(h.expires_at + h.payment_grace) AS all_frees
          INTO v_addr
          FROM holds h
         WHERE h.client_addr = p_addr AND h.state = 'HELD' AND h.expires_at + h.payment_grace > v_now;
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
    v_amount := hold_amount(p_show, p_seats);

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
