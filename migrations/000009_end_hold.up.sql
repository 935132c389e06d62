-- end_hold: ending a hold (a cancel, or the lazy expiry of a lapsed one) in
-- one round trip, as hold_seats takes one. The same steps Store.endHold took
-- as six statements: read the hold; if it is HELD, lock its seats in the
-- global order, then the hold, and decide again under the locks; release
-- only the seats it still owns, so a stale release never frees a seat a
-- newer hold took over.
--
-- p_user, when not NULL, must own the hold: another user's hold is not
-- found. No row comes back for a hold that is not found; otherwise the hold
-- as it is afterwards.
CREATE FUNCTION end_hold(p_hold uuid, p_user uuid, p_cancel boolean, p_now timestamptz)
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
