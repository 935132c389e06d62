-- Payments to check: an admin who looked into a payment whose story did not
-- finish by itself (a refund that keeps failing, an amount that did not
-- match, a checkout the provider never answered about) marks it resolved
-- with a note, and it leaves the queue (postgres.(*Store).Reconciliation).
-- item is 'payment:<payment_id>' or 'check:<hold_id>'.
CREATE TABLE reconciliation_resolutions (
    item        text PRIMARY KEY CHECK (item ~ '^(payment|check):.+'),
    resolved_by uuid NOT NULL REFERENCES users (id),
    note        text NOT NULL CHECK (length(note) BETWEEN 1 AND 1000),
    resolved_at timestamptz NOT NULL
);
