-- The hold path with no announcements of its own: hold_seats and end_hold
-- as they were before they inserted their own seat_events rows (the
-- database at migration 000012, before 000013), and the show_seats_changed
-- trigger recording every UPDATE again, with no WHEN clause. With that
-- trigger disabled, no seat change writes a seat_events row: the baseline
-- cmd/bench -live measures the announcements against.
--
-- It is applied to a database at the latest schema; NoAnnouncements saves
-- the definitions it replaces and puts them back. What hold_seats and
-- end_hold decide is the same as today's; they differ only in the
-- seat_events insert and the SET marquee.seat_events clause.
CREATE OR REPLACE FUNCTION hold_seats(
    p_user uuid, p_show bigint, p_seats text[], p_ttl interval,
    p_key text, p_fingerprint text, p_lock_timeout text, p_now timestamptz
) RETURNS TABLE (
    outcome text, hold_id uuid, seat_ids text[], state text,
    expires_at timestamptz, amount_minor bigint, currency text, created_at timestamptz
) LANGUAGE plpgsql AS $$
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
            CASE WHEN v_active.expires_at <= v_now THEN 'LAPSED_HOLD' ELSE 'ACTIVE_HOLD' END,
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

    INSERT INTO hold_keys (user_id, key, fingerprint, hold_id, created_at)
    VALUES (p_user, p_key, p_fingerprint, hold_seats.hold_id, v_now);

    outcome := 'HELD'; seat_ids := p_seats; state := 'HELD'; expires_at := v_now + p_ttl;
    amount_minor := v_amount; currency := v_currency; created_at := v_now;
    RETURN NEXT;
END $$;

CREATE OR REPLACE FUNCTION end_hold(p_hold uuid, p_user uuid, p_cancel boolean, p_now timestamptz)
RETURNS SETOF holds LANGUAGE plpgsql AS $$
DECLARE
    h      holds%ROWTYPE;
    v_now  timestamptz;
    v_next text;
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
        UPDATE show_seats ss
           SET status = 'AVAILABLE', hold_id = NULL, hold_expires_at = NULL
         WHERE ss.show_id = h.show_id AND ss.seat_id = ANY (h.seat_ids)
           AND ss.hold_id = p_hold AND ss.status = 'HELD';
        UPDATE holds SET state = v_next, ended_at = v_now WHERE holds.id = p_hold
        RETURNING * INTO h;
    END IF;
    RETURN NEXT h;
END $$;

DROP TRIGGER show_seats_changed ON show_seats;
CREATE TRIGGER show_seats_changed AFTER UPDATE ON show_seats
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION record_seat_events();
