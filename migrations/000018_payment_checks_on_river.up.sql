-- Payment checks are River jobs (jobs.PaymentCheck, worked by
-- reconcile.Worker), inserted in the transaction of the checkout that
-- arms them: River schedules each check and decides which worker takes it,
-- so nothing writes payment_checks any more, and nothing leases its rows.
-- The indexes the lease read go here. The table itself goes with the
-- carry-over of its rows to River (postgres.Store.carryOverPaymentChecks,
-- run by postgres.Migrate after River's migrations): River's tables are
-- migrated after ours, so this file can neither insert the jobs nor drop
-- the rows before they are.
DROP INDEX IF EXISTS payment_checks_due_idx;
DROP INDEX IF EXISTS payment_checks_first_idx;
