-- A cancelled show: what its cancellation did, kept so that cancelling it
-- again answers the same, and the invariant that a cancelled show sells
-- nothing.

-- How many holds the cancellation ended and how many bookings it refunded
-- (postgres.(*Store).CancelShow, internal/postgres/admin_occupancy.go).
-- NULL for a show not cancelled by CancelShow.
ALTER TABLE shows
    ADD COLUMN cancel_holds_released int CHECK (cancel_holds_released >= 0),
    ADD COLUMN cancel_bookings_refunded int CHECK (cancel_bookings_refunded >= 0);

-- booking_invariant_violations, redefined here (000004 had it first, 000007
-- narrowed one I5 clause, kept here; I1 gains the clauses on cancelled shows).
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
    -- once named; see 000007.)
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
