package postgres

// HoldOutcomes exposes holdOutcomes to the black-box tests.
var HoldOutcomes = holdOutcomes
