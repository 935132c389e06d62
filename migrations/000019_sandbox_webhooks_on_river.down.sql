-- Back to the polling worker's schedule: every delivery still PENDING is
-- due at once (its River job, which the older build does not work, stays
-- in river_job).
ALTER TABLE sandbox_webhooks ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE sandbox_webhooks ALTER COLUMN next_attempt_at DROP DEFAULT;
CREATE INDEX sandbox_webhooks_due_idx ON sandbox_webhooks (next_attempt_at, id) WHERE status = 'PENDING';
