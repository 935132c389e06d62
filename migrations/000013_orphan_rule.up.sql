-- A theatre's orphan rule: a hold of seats picked by hand that would leave
-- one empty seat alone in its row (between taken seats, or beside a row's
-- end or an aisle) is refused, with the nearest choice of as many seats
-- that leaves nobody alone offered instead (postgres.(*Store).HoldSeats,
-- seating.Stranded and seating.Suggest). On unless the theatre turns it
-- off; every theatre, the existing ones too, starts with it on.
ALTER TABLE theatres ADD COLUMN orphan_rule boolean NOT NULL DEFAULT true;
