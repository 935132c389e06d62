// Package migrations holds the database schema as golang-migrate SQL files,
// embedded so the server binary migrates its own database at start-up.
// README.md says which file holds what; migrations are append-only.
// schema.sql, what they add up to, is for reading and is not embedded.
package migrations

import "embed"

// FS holds every NNNNNN_name.{up,down}.sql file.
//
//go:embed *.up.sql *.down.sql
var FS embed.FS
