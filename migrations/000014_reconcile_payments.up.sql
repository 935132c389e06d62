-- Reconciliation: a payment whose webhook never arrives must still end in a
-- booking or a refund. The app records every hold it opened a checkout for,
-- and a worker asks the provider about it, server to server, until the
-- hold's payments are settled (see internal/reconcile).
--
-- One row per hold whose checkout the app opened, while its checks last;
-- the row is deleted after the last one. armed_at is when the latest
-- checkout was opened: opening another re-arms the schedule, and a check
-- finishes only the schedule it was leased under. next_check_at is NULL
-- until the first check, due at armed_at plus the worker's delay. Workers of
-- several instances lease rows by moving next_check_at forward under
-- FOR UPDATE SKIP LOCKED.
CREATE TABLE payment_checks (
    hold_id       uuid PRIMARY KEY REFERENCES holds (id),
    armed_at      timestamptz NOT NULL,
    next_check_at timestamptz,
    checks        int NOT NULL DEFAULT 0,
    last_error    text
);
CREATE INDEX payment_checks_due_idx ON payment_checks (next_check_at);
CREATE INDEX payment_checks_first_idx ON payment_checks (armed_at) WHERE next_check_at IS NULL;

-- Reconciliation asks whether a hold's payment has its outcome; My bookings
-- lists a user's refunded payments.
CREATE INDEX payments_hold_idx ON payments (hold_id);
CREATE INDEX payments_refunded_user_idx ON payments (user_id, received_at DESC) WHERE outcome = 'REFUND_REQUIRED';

-- The sandbox's side: a checkout knows its hold's deadline, so it refuses
-- to take money once the hold has expired, and where the shopper goes back
-- to without paying (the show). Both are NULL for checkouts opened before.
ALTER TABLE sandbox_checkouts
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN back_url   text CHECK (length(back_url) BETWEEN 1 AND 2000);
