DROP FUNCTION IF EXISTS booking_invariant_violations(timestamptz);
