-- Undoes 000025: every screen is in use again.
ALTER TABLE screens DROP COLUMN retired_at;
