-- Refunds are paid by River's jobs (internal/refunds), which keep when each
-- is next tried: the refunds' own schedule goes.
DROP INDEX refunds_due_idx;
ALTER TABLE refunds DROP COLUMN next_attempt_at;
