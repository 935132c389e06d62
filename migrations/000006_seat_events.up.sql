-- Every committed change of a show_seat is announced to every app instance.
-- A booking transaction only inserts rows here (a statement trigger, so no
-- path can forget); the notifier (internal/live) takes them in batches and
-- sends one NOTIFY per show, so the database-wide lock NOTIFY takes at
-- commit is paid once per batch, not by every hold. A rolled-back change
-- leaves no row. Rows are taken with FOR UPDATE SKIP LOCKED and deleted, never
-- read by "id greater than the last seen": ids commit out of order.
CREATE TABLE seat_events (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    show_id bigint NOT NULL,
    seat_id text NOT NULL
);

CREATE FUNCTION record_seat_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO seat_events (show_id, seat_id) SELECT show_id, seat_id FROM changed;
    RETURN NULL;
END $$;

CREATE TRIGGER show_seats_changed AFTER UPDATE ON show_seats
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION record_seat_events();
