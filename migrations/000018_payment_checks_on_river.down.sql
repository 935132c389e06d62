-- Back to the polling worker's table, as 000001 made it, empty if the
-- carry-over dropped it: the checks carried over to River stay River jobs,
-- which the older build does not work, so the holds they watch are not
-- asked about again.
CREATE TABLE IF NOT EXISTS payment_checks (
    hold_id       uuid PRIMARY KEY REFERENCES holds (id),
    armed_at      timestamptz NOT NULL,
    next_check_at timestamptz,
    checks        int NOT NULL DEFAULT 0,
    last_error    text
);
CREATE INDEX IF NOT EXISTS payment_checks_due_idx ON payment_checks (next_check_at);
CREATE INDEX IF NOT EXISTS payment_checks_first_idx ON payment_checks (armed_at) WHERE next_check_at IS NULL;
