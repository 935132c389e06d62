package pages_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// The test databases are copies of one template; Main drops it at the end,
// after the browser tests' Chromium is stopped.
func TestMain(m *testing.M) { pgtest.Main(m, stopChromium) }
