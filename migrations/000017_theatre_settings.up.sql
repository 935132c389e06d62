-- A theatre's settings in one document (theatres.settings): the rules a
-- theatre chooses for its own sales, each a key of catalog.TheatreSettings.
-- A new setting is a key, not a column: a theatre stored before it has none
-- and takes its default (catalog.DefaultTheatreSettings; a rule that reads
-- a setting in SQL coalesces to the same default). The orphan rule (000013)
-- is the first; its column's values move into the document.
ALTER TABLE theatres ADD COLUMN settings jsonb NOT NULL DEFAULT '{}'
    CHECK (jsonb_typeof(settings) = 'object');
UPDATE theatres SET settings = jsonb_build_object('orphan_rule', orphan_rule);
ALTER TABLE theatres DROP COLUMN orphan_rule;
