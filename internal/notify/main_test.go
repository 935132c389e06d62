package notify_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
