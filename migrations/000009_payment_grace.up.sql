-- One checkout per hold, and a payment made in time books.
--
-- A hold for which a checkout was opened keeps its seats for a short grace
-- after its deadline (holds.payment_grace, PAYMENT_GRACE, set by
-- postgres.(*Store).PrepareCheckout under the seats' and the hold's locks):
-- no new money is taken after the deadline, but a payment the provider
-- captured before it, whose report arrives late, still books. A hold lets
-- its seats go at expires_at + payment_grace, and show_seats.hold_expires_at
-- of the seats it holds says that time, so every reader of a seat (the seat
-- map, hold_seats) honours the grace as it is. Every function that decides
-- a hold has lapsed is redefined in full below.
ALTER TABLE holds ADD COLUMN payment_grace interval NOT NULL DEFAULT '0'
    CHECK (payment_grace >= interval '0' AND payment_grace <= interval '1 hour');

-- Sandbox Pay: at most one open checkout per hold. Opening a checkout for a
-- hold that has one returns it (Sandbox Pay's CreateCheckout decides it
-- under its lock of the hold); this index is the
-- constraint behind it. Older open checkouts of one hold, kept from before
-- the rule, are closed as declined first: nothing was charged on them.
UPDATE sandbox_checkouts c SET status = 'DECLINED', behaviour = 'normal', completed_at = clock_timestamp()
 WHERE c.status = 'OPEN'
   AND EXISTS (SELECT 1 FROM sandbox_checkouts n WHERE n.hold_id = c.hold_id AND n.status = 'OPEN' AND n.seq > c.seq);
CREATE UNIQUE INDEX sandbox_checkouts_one_open_idx ON sandbox_checkouts (hold_id) WHERE status = 'OPEN';

-- hold_seats, redefined here (000008 had it last): called by
-- postgres.(*Store).HoldSeats (internal/postgres/holds.go). What changed
-- since 000008: a hold lapses when it lets its seats go, at its deadline
-- plus its payment grace (step 3's LAPSED_HOLD, step 4's count of what an
-- address holds and when its soonest hold frees, and the replay's state).
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

-- hold_seats_replay: called by hold_seats and hold_seats_conflict.
--
-- The answer to a key seen before: the same hold whatever its state now, with
-- a lapsed HELD hold (past its deadline and its payment grace) reported as
-- EXPIRED; a different request is refused. Redefined here (000003 had it):
-- what changed is the payment grace.
CREATE OR REPLACE FUNCTION hold_seats_replay(p_stored text, p_fingerprint text, p_hold uuid, p_now timestamptz)
RETURNS TABLE (
    outcome hold_outcome, hold_id uuid, seat_ids text[], state text,
    expires_at timestamptz, amount_minor bigint, currency text, created_at timestamptz
) LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN p_stored = p_fingerprint THEN 'REPLAYED'::hold_outcome ELSE 'KEY_REUSED' END,
           h.id, h.seat_ids,
           CASE WHEN h.state = 'HELD' AND h.expires_at + h.payment_grace <= p_now THEN 'EXPIRED' ELSE h.state END,
           h.expires_at, h.amount_minor, h.currency, h.created_at
      FROM holds h WHERE h.id = p_hold
$$;

-- end_hold: called through postgres.endHoldOn (internal/postgres/holds.go) by
-- (*Store).CancelHold, by HoldSeats for the user's lapsed hold in its way,
-- by ConfirmPayment for a lapsed hold paid too late, and by ExpireHolds for
-- each lapsed hold of the sweeper's batch: the one place that ends a hold.
--
-- Redefined here (000003 had it): what changed is that a hold lapses at its
-- deadline plus its payment grace, not at its deadline.
--
-- Ends hold p_hold if it is HELD: as EXPIRED once it has lapsed (its
-- deadline and its payment grace have passed; even when cancelling), else as CANCELLED when p_cancel is set. p_user, when not
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
CREATE OR REPLACE FUNCTION end_hold(p_hold uuid, p_user uuid, p_cancel boolean, p_now timestamptz)
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
        IF h.expires_at + h.payment_grace <= v_now THEN
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

-- booking_invariant_violations, redefined here (000006 had it last). What
-- changed since 000006: a HELD seat's hold_expires_at is when its hold lets
-- it go, the hold's deadline plus its payment grace, and a hold is live
-- until then.
-- booking_invariant_violations: called by postgres.(*Store).InvariantViolations
-- (internal/postgres/invariants.go).
--
-- Every violation of the booking invariants, one row each:
--
--   I1  a seat's state agrees with its owner: a HELD seat is listed by a
--       HELD hold of its show with the time it lets go, a BOOKED seat by a
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
    -- I1: a HELD seat names a HELD hold of the same show that lists it, with the
    -- time the hold lets it go (its deadline plus its payment grace).
    SELECT 'I1', format('show %s seat %s is HELD by %s in state %s', ss.show_id, ss.seat_id, ss.hold_id, h.state)
      FROM show_seats ss JOIN holds h ON h.id = ss.hold_id
     WHERE ss.status = 'HELD'
       AND (h.state <> 'HELD' OR NOT ss.seat_id = ANY (h.seat_ids) OR ss.hold_expires_at <> h.expires_at + h.payment_grace)
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
     WHERE ((h.state = 'HELD' AND h.expires_at + h.payment_grace > coalesce(p_now, now()))
            OR (h.state = 'CONFIRMED' AND b.status = 'CONFIRMED'))
       AND NOT EXISTS (SELECT 1 FROM show_seats ss WHERE ss.show_id = h.show_id AND ss.seat_id = s.seat_id)
    UNION ALL
    -- I5: nothing partial: a live hold owns all its seats; a confirmed one has them all BOOKED.
    SELECT 'I5', format('hold %s (%s) owns %s of its %s seats', h.id, h.state, owned, cardinality(h.seat_ids))
      FROM holds h
      CROSS JOIN LATERAL (SELECT count(*) AS owned FROM show_seats ss WHERE ss.hold_id = h.id) o
      LEFT JOIN bookings b ON b.hold_id = h.id
     WHERE ((h.state = 'HELD' AND h.expires_at + h.payment_grace > coalesce(p_now, now()))
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
