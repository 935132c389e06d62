ALTER TABLE theatres ADD COLUMN orphan_rule boolean NOT NULL DEFAULT true;
UPDATE theatres SET orphan_rule = coalesce((settings ->> 'orphan_rule')::boolean, true);
ALTER TABLE theatres DROP COLUMN settings;
