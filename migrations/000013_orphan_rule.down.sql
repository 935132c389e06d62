-- Undoes 000013.
ALTER TABLE theatres DROP COLUMN orphan_rule;
