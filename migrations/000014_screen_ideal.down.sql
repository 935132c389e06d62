-- Undoes 000014: every screen's best view is the default again.
ALTER TABLE screens DROP COLUMN ideal_grid_row, DROP COLUMN ideal_grid_col;
