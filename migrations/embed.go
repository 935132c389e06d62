// Package migrations holds the database schema as golang-migrate SQL files,
// embedded so the server binary migrates its own database at start-up.
// README.md says which file holds what; migrations are append-only.
package migrations

import "embed"

// FS holds every NNNNNN_name.{up,down}.sql file.
//
//go:embed *.sql
var FS embed.FS
