ALTER TABLE sandbox_checkouts DROP COLUMN IF EXISTS back_url, DROP COLUMN IF EXISTS expires_at;
DROP INDEX IF EXISTS payments_refunded_user_idx;
DROP INDEX IF EXISTS payments_hold_idx;
DROP TABLE IF EXISTS payment_checks;
