package session_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The test databases are copies of one template; Main drops it at the end.
func TestMain(m *testing.M) { pgtest.Main(m) }
