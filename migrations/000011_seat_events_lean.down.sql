CREATE OR REPLACE FUNCTION record_seat_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO seat_events (show_id, seat_id) SELECT show_id, seat_id FROM changed;
    RETURN NULL;
END $$;

ALTER TABLE seat_events ADD COLUMN seat_id text;
ALTER TABLE seat_events ALTER COLUMN seat_ids DROP NOT NULL;
INSERT INTO seat_events (show_id, seat_id, at)
SELECT show_id, unnest(seat_ids), at FROM seat_events WHERE seat_ids IS NOT NULL;
DELETE FROM seat_events WHERE seat_id IS NULL;
ALTER TABLE seat_events ALTER COLUMN seat_id SET NOT NULL;
ALTER TABLE seat_events DROP COLUMN seat_ids;
ALTER TABLE seat_events SET LOGGED;
