-- E-mails owed to people (internal/mail). A row is written in the
-- transaction of the change that owes it, with the River job that sends it
-- (internal/notify); once_key makes a mail that must go once (a booking's
-- ticket, its cancellation, a refund's payment) go once whatever writes it
-- again. Resent tickets have no key.
CREATE TABLE mails (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('ticket', 'ticket_resent', 'booking_cancelled', 'show_cancelled',
                                             'refund_paid', 'refund_failing', 'refund_failing_staff', 'payment_refunded')),
    recipient   text NOT NULL CHECK (length(recipient) BETWEEN 3 AND 254),
    user_id     uuid REFERENCES users (id) ON DELETE SET NULL,
    booking_id  uuid REFERENCES bookings (id),
    show_id     bigint REFERENCES shows (id),
    refund_id   uuid REFERENCES refunds (id),
    payment_id  text,
    once_key    text UNIQUE,
    -- QUEUED until sent (retried meanwhile), SENT, FAILED when its job gave
    -- up, NOT_SENT for what was owed before Marquee sent e-mail.
    status      text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'SENT', 'FAILED', 'NOT_SENT')),
    attempts    int NOT NULL DEFAULT 0,
    last_error  text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    sent_at     timestamptz,
    -- who asked for it, when staff did (a resent ticket)
    requested_by uuid REFERENCES users (id) ON DELETE SET NULL
);
CREATE INDEX mails_booking_idx ON mails (booking_id) WHERE booking_id IS NOT NULL;
CREATE INDEX mails_show_user_idx ON mails (show_id, user_id) WHERE show_id IS NOT NULL;
CREATE INDEX mails_refund_idx ON mails (refund_id) WHERE refund_id IS NOT NULL;

-- Demo mode's mailbox: mail kept as it would have been sent, when no SMTP
-- server is configured.
CREATE TABLE dev_mailbox (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    recipient   text NOT NULL,
    subject     text NOT NULL,
    raw         bytea NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- The outbox was written and never read: what it holds becomes the record
-- of mails that were owed and never sent (a ticket can be resent), and it
-- goes.
INSERT INTO mails (kind, recipient, user_id, booking_id, show_id, once_key, status, last_error, created_at)
SELECT DISTINCT ON (once_key) kind, recipient, user_id, booking_id, show_id, once_key, 'NOT_SENT',
       'owed before Marquee sent e-mail', created_at
  FROM (
    SELECT CASE WHEN o.topic = 'booking.confirmed' THEN 'ticket'
                WHEN o.payload->>'by' = 'theatre' THEN 'show_cancelled'
                ELSE 'booking_cancelled' END AS kind,
           u.email AS recipient, b.user_id, b.id AS booking_id, b.show_id, o.created_at,
           CASE WHEN o.topic = 'booking.confirmed' THEN 'ticket:' || b.id
                WHEN o.payload->>'by' = 'theatre' THEN 'show_cancelled:' || b.show_id || ':' || b.user_id
                ELSE 'booking_cancelled:' || b.id END AS once_key
      FROM outbox o
      JOIN bookings b ON b.id = (o.payload->>'booking_id')::uuid
      JOIN users u ON u.id = b.user_id
     WHERE o.topic IN ('booking.confirmed', 'booking.cancelled')
  ) owed
 ORDER BY once_key, created_at;

DROP TABLE outbox;
