DROP TABLE posters;
ALTER TABLE shows DROP COLUMN language, DROP COLUMN format;
ALTER TABLE movies DROP COLUMN genres, DROP COLUMN language;
