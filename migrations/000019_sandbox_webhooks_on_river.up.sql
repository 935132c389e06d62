-- Sandbox Pay's webhook deliveries are River jobs (jobs.WebhookDelivery,
-- one per sandbox_webhooks row, inserted with it): River now decides when
-- a delivery is tried next and which worker takes it, so the row's lease
-- and schedule go. The row stays the sandbox's record of the delivery:
-- status, attempts, the last answer. Deliveries still PENDING get their
-- jobs at the next start (sandbox.Resume): River's tables are migrated
-- after ours, so this file cannot insert them.
DROP INDEX sandbox_webhooks_due_idx;
ALTER TABLE sandbox_webhooks DROP COLUMN next_attempt_at;
