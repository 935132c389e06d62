DROP INDEX IF EXISTS refunds_due_idx;
ALTER TABLE refunds DROP COLUMN IF EXISTS next_attempt_at, DROP COLUMN IF EXISTS last_error;
