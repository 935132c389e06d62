-- Undoes 000011.
ALTER TABLE refunds DROP CONSTRAINT refunds_amount_bound;
ALTER TABLE payments DROP CONSTRAINT payments_id_chars, DROP CONSTRAINT payments_amount_bound;
