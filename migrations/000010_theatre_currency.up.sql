-- A theatre's currency: the one its shows are priced in unless an admin
-- names another, and the one the schedule form starts from. A theatre that
-- already has shows takes the currency most of them use (the latest show's
-- among equals); one without shows takes INR, the currency every show had
-- before a theatre had one.
ALTER TABLE theatres ADD COLUMN currency text NOT NULL DEFAULT 'INR' CHECK (currency ~ '^[A-Z]{3}$');

UPDATE theatres t
   SET currency = used.currency
  FROM (SELECT DISTINCT ON (sc.theatre_id) sc.theatre_id, sh.currency
          FROM shows sh JOIN screens sc ON sc.id = sh.screen_id
         GROUP BY sc.theatre_id, sh.currency
         ORDER BY sc.theatre_id, count(*) DESC, max(sh.starts_at) DESC) used
 WHERE used.theatre_id = t.id;
