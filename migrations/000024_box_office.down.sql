DROP INDEX bookings_channel_idx;
ALTER TABLE bookings DROP CONSTRAINT bookings_counter_check,
    DROP COLUMN sale_reason, DROP COLUMN customer_email, DROP COLUMN customer_name,
    DROP COLUMN paid_by, DROP COLUMN channel;
