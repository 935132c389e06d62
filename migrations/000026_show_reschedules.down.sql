-- Undoes 000026. The record of moves goes, and with it a moved booking's
-- right to everything back (the theatre's policy applies to it again) and
-- the mails about moves, which no kind can name any more (a mail job of
-- one still queued finds no mail and ends).
DELETE FROM mails WHERE kind = 'show_rescheduled';
ALTER TABLE mails DROP CONSTRAINT mails_kind_check;
ALTER TABLE mails ADD CONSTRAINT mails_kind_check CHECK (kind IN ('ticket', 'ticket_resent', 'booking_cancelled',
    'show_cancelled', 'refund_paid', 'refund_failing', 'refund_failing_staff', 'payment_refunded'));
ALTER TABLE mails DROP COLUMN reschedule_id;
DROP TABLE booking_moves;
DROP TABLE show_reschedules;
