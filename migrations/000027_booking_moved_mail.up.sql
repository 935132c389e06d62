-- The mail of a booking the box office moved to another show: its new
-- ticket, whose signed code names the new show.
ALTER TABLE mails DROP CONSTRAINT mails_kind_check;
ALTER TABLE mails ADD CONSTRAINT mails_kind_check CHECK (kind IN ('ticket', 'ticket_resent', 'booking_cancelled',
    'show_cancelled', 'refund_paid', 'refund_failing', 'refund_failing_staff', 'payment_refunded', 'show_rescheduled',
    'booking_moved'));
