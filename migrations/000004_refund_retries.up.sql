-- The refund worker leases a refund before calling the provider (never
-- inside a transaction) and retries failures with backoff; several app
-- instances may run it at once.
ALTER TABLE refunds
    ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN last_error text;
CREATE INDEX refunds_due_idx ON refunds (next_attempt_at) WHERE status IN ('PENDING', 'FAILED');
