-- Live seat events: every committed change of a show_seat is announced to
-- every app instance. A transaction that changes seats only inserts a row
-- here, one per statement and show, naming the changed seats; the notifier
-- (postgres.(*Store).AnnounceSeatChanges, internal/postgres/announce.go,
-- driven by internal/live) takes rows in batches with FOR UPDATE SKIP
-- LOCKED, deletes them and sends one NOTIFY per show, so the database-wide
-- lock NOTIFY takes at commit is paid once per batch, not by every hold. A
-- rolled-back change leaves no row.
--
-- The order of a show's changes does not matter: a listener reads the
-- changed seats' current states when it delivers, so the queue has no id,
-- no sequence and no index (rows are taken by their physical address), and
-- nothing on the statements that change seats pays for one. at is when the
-- change happened, for the lag from a change to its fan-out.
--
-- Unlogged, so the queue writes no WAL of its own. That is safe because an
-- event only matters while the server that holds it keeps running: a crash
-- empties the table, but it also drops every listener's connection, and a
-- listener resyncs all its viewers after every reconnect (internal/live),
-- which covers whatever the lost events would have said. The same holds
-- after a failover to a standby, which never had the table's rows.
CREATE UNLOGGED TABLE seat_events (
    show_id  bigint NOT NULL,
    at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    seat_ids text[] NOT NULL
);

-- Every UPDATE of show_seats is recorded by this statement trigger, so no
-- path can forget, except the statements of hold_seats and end_hold (000003),
-- the ones nearly every request that changes a seat runs: they insert their
-- row themselves, a plain INSERT of what they just changed, and run with
-- marquee.seat_events = 'recorded' (their SET clause, so only while they run)
-- for the trigger to skip them. Calling a PL/pgSQL trigger with a transition
-- table costs every statement a tuplestore, memory contexts and an executor
-- for the trigger's query; the functions' own INSERT is one more statement
-- of a function already running, and kept more hold-and-release cycles per
-- second in pgbench on 2 cores (8 and 64 clients, six paired rounds).
CREATE FUNCTION record_seat_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO seat_events (show_id, seat_ids)
    SELECT show_id, array_agg(seat_id) FROM changed GROUP BY show_id;
    RETURN NULL;
END $$;

CREATE TRIGGER show_seats_changed AFTER UPDATE ON show_seats
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT
    WHEN (current_setting('marquee.seat_events', true) IS DISTINCT FROM 'recorded')
    EXECUTE FUNCTION record_seat_events();
