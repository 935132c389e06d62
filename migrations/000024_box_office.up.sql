-- Counter sales. A booking is sold online (by its moviegoer, through the
-- payment provider), at the box office (paid in cash or by card at the
-- counter) or given complimentary (with a reason). A counter sale's
-- booking belongs to the account of the staff who sold it (sold_by); the
-- customer is named on the booking, with an e-mail address the ticket goes
-- to if they gave one. Its payment is recorded like a provider's, under an
-- id of the counter's own (counter_...), so the ledger's invariants hold
-- for every channel.
ALTER TABLE bookings
    ADD COLUMN channel text NOT NULL DEFAULT 'online'
        CONSTRAINT bookings_channel_check CHECK (channel IN ('online', 'box_office', 'complimentary')),
    ADD COLUMN paid_by text
        CONSTRAINT bookings_paid_by_check CHECK (paid_by IN ('cash', 'card', 'complimentary')),
    ADD COLUMN customer_name text CHECK (length(customer_name) BETWEEN 1 AND 100),
    ADD COLUMN customer_email text CHECK (length(customer_email) BETWEEN 3 AND 254),
    ADD COLUMN sale_reason text CHECK (length(sale_reason) BETWEEN 1 AND 500),
    ADD CONSTRAINT bookings_counter_check CHECK (
        (channel = 'online') = (paid_by IS NULL AND customer_name IS NULL)
        AND (channel = 'complimentary') = (paid_by IS NOT DISTINCT FROM 'complimentary')
        AND (channel <> 'complimentary' OR (sale_reason IS NOT NULL AND amount_minor = 0)));
CREATE INDEX bookings_channel_idx ON bookings (show_id, channel);
