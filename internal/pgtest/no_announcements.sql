-- The show_seats_changed trigger recording every UPDATE again, with no WHEN
-- clause: with the hold path's own seat_events inserts taken out (see
-- NoAnnouncements) and this trigger disabled, no seat change writes a
-- seat_events row: the baseline cmd/bench -live measures the announcements
-- against.
DROP TRIGGER show_seats_changed ON show_seats;
CREATE TRIGGER show_seats_changed AFTER UPDATE ON show_seats
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION record_seat_events();
