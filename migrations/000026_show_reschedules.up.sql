-- A show its theatre moved to another time on its own screen
-- (postgres.(*Store).RescheduleShow): one row per move, the show's start
-- and end before and after it. The show keeps its id, seats, holds and
-- bookings; this is what the moviegoers are told, and the mails of a move
-- name it (mails.reschedule_id), so each says the move it is about
-- whatever moves follow.
CREATE TABLE show_reschedules (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    show_id        bigint NOT NULL REFERENCES shows (id),
    from_starts_at timestamptz NOT NULL,
    from_ends_at   timestamptz NOT NULL,
    to_starts_at   timestamptz NOT NULL,
    to_ends_at     timestamptz NOT NULL,
    rescheduled_at timestamptz NOT NULL,
    CONSTRAINT show_reschedules_ends CHECK (from_ends_at > from_starts_at AND to_ends_at > to_starts_at),
    CONSTRAINT show_reschedules_moves CHECK (to_starts_at <> from_starts_at)
);
CREATE INDEX show_reschedules_show_idx ON show_reschedules (show_id, id);

-- The bookings each move took along: those confirmed when it was made,
-- decided under the show's seat locks. Their moviegoers may decline the new
-- time: cancelled before the show starts, such a booking gets everything
-- back whatever the theatre's refund policy says (booking.MovedPolicy, in
-- postgres.(*Store).CancelBooking and QuoteCancellation). A booking made
-- after a move is not here: it was bought at the new time, under the
-- policy.
CREATE TABLE booking_moves (
    booking_id    uuid NOT NULL REFERENCES bookings (id),
    reschedule_id bigint NOT NULL REFERENCES show_reschedules (id),
    PRIMARY KEY (booking_id, reschedule_id)
);
CREATE INDEX booking_moves_reschedule_idx ON booking_moves (reschedule_id);

-- The mail of a move: each moviegoer of its bookings once
-- ('show_rescheduled:<move>:<address>').
ALTER TABLE mails ADD COLUMN reschedule_id bigint REFERENCES show_reschedules (id);
ALTER TABLE mails DROP CONSTRAINT mails_kind_check;
ALTER TABLE mails ADD CONSTRAINT mails_kind_check CHECK (kind IN ('ticket', 'ticket_resent', 'booking_cancelled',
    'show_cancelled', 'refund_paid', 'refund_failing', 'refund_failing_staff', 'payment_refunded', 'show_rescheduled'));
