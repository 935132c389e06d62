-- Undoes 000007.
DROP TABLE reconciliation_resolutions;
