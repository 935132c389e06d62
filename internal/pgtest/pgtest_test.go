package pgtest_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// BenchmarkNewDatabase measures what every store test pays before its
// first statement: a database of its own, migrated.
func BenchmarkNewDatabase(b *testing.B) {
	for b.Loop() {
		pgtest.NewDatabase(b)
	}
}
