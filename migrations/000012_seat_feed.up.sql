-- The position of the live seat map's change feed. Every NOTIFY the
-- notifier sends (postgres.(*Store).AnnounceSeatChanges) carries the next
-- number of this one-row counter, taken in the transaction that sends it.
-- Concurrent notifiers (one per instance) queue on the row, so numbers are
-- handed out in commit order, which is the order NOTIFY delivers in, and a
-- rolled-back batch takes none: a listener that sees a number other than
-- the one after its last has missed a notification and resyncs, and one
-- that has heard nothing for a while compares its last number with this
-- row's. Each instance's in-memory seat maps (internal/live) are only as
-- good as that check.
CREATE TABLE seat_feed (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    seq bigint NOT NULL DEFAULT 0
);
INSERT INTO seat_feed DEFAULT VALUES;
