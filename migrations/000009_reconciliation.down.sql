-- Undoes 000009.
DROP TABLE reconciliation_resolutions;
