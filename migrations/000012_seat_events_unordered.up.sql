-- seat_events without its id. The order of a show's changes never
-- mattered: a listener reads the changed seats' current states when it
-- delivers (internal/live), so the notifier takes rows in any order, by
-- their physical address, and the queue needs no sequence and no index.
-- That takes a sequence increment and an index insert off every statement
-- that changes seats, and it fixes the notifier's plan: "id IN (SELECT id
-- ... LIMIT n)" was planned as a hash join over a sequential scan of the
-- whole table, so every batch cost as much as the backlog was long.
ALTER TABLE seat_events DROP COLUMN id;
