-- Undoes 000027: the mails of moved bookings become resent tickets, which
-- say the same but for their heading.
UPDATE mails SET kind = 'ticket_resent' WHERE kind = 'booking_moved';
ALTER TABLE mails DROP CONSTRAINT mails_kind_check;
ALTER TABLE mails ADD CONSTRAINT mails_kind_check CHECK (kind IN ('ticket', 'ticket_resent', 'booking_cancelled',
    'show_cancelled', 'refund_paid', 'refund_failing', 'refund_failing_staff', 'payment_refunded', 'show_rescheduled'));
