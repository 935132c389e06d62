-- Undoes 000010.
ALTER TABLE theatres DROP COLUMN currency;
