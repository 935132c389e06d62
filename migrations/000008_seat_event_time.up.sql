-- When each seat change happened, so the live seat map can measure the lag
-- from a change to its fan-out.
ALTER TABLE seat_events ADD COLUMN at timestamptz NOT NULL DEFAULT clock_timestamp();
