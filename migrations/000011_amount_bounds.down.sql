-- Undoes 000011.
DROP TRIGGER refunds_amount_bound ON refunds;
DROP FUNCTION refunds_amount_bound();
ALTER TABLE payments DROP CONSTRAINT payments_id_chars, DROP CONSTRAINT payments_amount_bound;
