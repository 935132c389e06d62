-- Bounds on what a provider's report may record, so that no id can be
-- read as an address and no sum of amounts can leave bigint's range:
-- booking.Payment.Validate refuses both before a payment is recorded, and
-- the database says it again where every writer must pass.
--
-- An amount of a payment or a refund is at most 1,000,000,000,000 minor
-- units (money.MaxAmountMinor); a payment id is 1-255 letters, digits and
-- "_.:-" (booking.ValidPaymentID). Rows recorded before these bounds are
-- kept as they are (the sales report and a show's page sum them in numeric
-- and say so when a total cannot be shown); every row written from now on
-- is checked.
--
-- Payments never change once written (payments_immutable), so their
-- bounds are CHECK constraints, NOT VALID for the rows already there.
ALTER TABLE payments
    ADD CONSTRAINT payments_amount_bound CHECK (amount_minor <= 1000000000000) NOT VALID,
    ADD CONSTRAINT payments_id_chars CHECK (payment_id ~ '^[A-Za-z0-9_.:-]{1,255}$') NOT VALID;

-- A refund's state changes after it is written (the refund worker leases
-- it, records its outcome), and Postgres checks a CHECK constraint, even a
-- NOT VALID one, on every new version of a row: one refund recorded past
-- the bound before it would then fail the worker's lease of its whole
-- batch, every time. So a refund's amount is checked when it is written
-- or its amount changes, by this trigger, and an old refund can still be
-- tried and recorded.
CREATE FUNCTION refunds_amount_bound() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.amount_minor > 1000000000000 THEN
        RAISE EXCEPTION 'refund of % minor units is past the bound of 1000000000000', NEW.amount_minor
            USING ERRCODE = 'check_violation', TABLE = 'refunds', CONSTRAINT = 'refunds_amount_bound';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER refunds_amount_bound BEFORE INSERT OR UPDATE OF amount_minor ON refunds
    FOR EACH ROW EXECUTE FUNCTION refunds_amount_bound();
