ALTER TABLE refunds ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX refunds_due_idx ON refunds (next_attempt_at) WHERE status IN ('PENDING', 'FAILED');
