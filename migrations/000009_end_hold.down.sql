DROP FUNCTION IF EXISTS end_hold(uuid, uuid, boolean, timestamptz);
