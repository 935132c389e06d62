-- A screen's ideal viewing point: the grid cell (grid_row, grid_col, as
-- its seats are placed) that best available seats a party nearest to
-- (postgres.(*Store).holdBest). NULL, the default, is two thirds of the way
-- back on the centre line of the seats (seating.DefaultIdeal). Set in the
-- layout editor with the layout, or by the admin API's "ideal".
ALTER TABLE screens
    ADD COLUMN ideal_grid_row int CHECK (ideal_grid_row BETWEEN 0 AND 999),
    ADD COLUMN ideal_grid_col int CHECK (ideal_grid_col BETWEEN 0 AND 999),
    ADD CONSTRAINT screens_ideal_whole CHECK ((ideal_grid_row IS NULL) = (ideal_grid_col IS NULL));
