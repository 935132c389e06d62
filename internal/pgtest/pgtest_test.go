package pgtest_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// BenchmarkNewDatabase measures what every store test pays before its
// first statement: a database of its own, migrated. The process's first
// database, which migrates the template, is made before the clock starts.
func BenchmarkNewDatabase(b *testing.B) {
	pgtest.NewDatabase(b)
	for b.Loop() {
		pgtest.NewDatabase(b)
	}
}
