DROP FUNCTION IF EXISTS end_hold(uuid, uuid, boolean, timestamptz);
DROP FUNCTION IF EXISTS hold_seats(uuid, bigint, text[], interval, text, text, text, timestamptz);
DROP FUNCTION IF EXISTS hold_seats_conflict(uuid, text, text, timestamptz, hold_outcome, uuid, text[], timestamptz);
DROP FUNCTION IF EXISTS hold_seats_replay(text, text, uuid, timestamptz);
DROP TYPE IF EXISTS hold_outcome;
