DROP TABLE IF EXISTS sandbox_settings;
DROP TABLE IF EXISTS sandbox_refunds;
DROP TABLE IF EXISTS sandbox_webhooks;
DROP TABLE IF EXISTS sandbox_payments;
DROP TABLE IF EXISTS sandbox_checkouts;
