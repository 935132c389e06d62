-- Bounds on what a provider's report may record, so that no id can be
-- read as an address and no sum of amounts can leave bigint's range:
-- booking.Payment.Validate refuses both before a payment is recorded, and
-- these constraints say it again where every writer must pass.
--
-- An amount of a payment or a refund is at most 1,000,000,000,000 minor
-- units (money.MaxAmountMinor); a payment id is 1-255 letters, digits and
-- "_.:-" (booking.ValidPaymentID). NOT VALID: rows recorded before these
-- bounds are kept as they are (the sales report and a show's page sum them
-- in numeric and say so when a total cannot be shown); every row written
-- from now on is checked. Postgres checks every new version of a row, so a
-- refund recorded before the bound and past it can no longer change state:
-- its payment stays among the payments to check, where an admin marks it
-- resolved (no provider would pay it back).
ALTER TABLE payments
    ADD CONSTRAINT payments_amount_bound CHECK (amount_minor <= 1000000000000) NOT VALID,
    ADD CONSTRAINT payments_id_chars CHECK (payment_id ~ '^[A-Za-z0-9_.:-]{1,255}$') NOT VALID;
ALTER TABLE refunds
    ADD CONSTRAINT refunds_amount_bound CHECK (amount_minor <= 1000000000000) NOT VALID;
