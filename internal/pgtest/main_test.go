package pgtest

import "testing"

// The test databases are copies of one template; Main drops it at the end.
func TestMain(m *testing.M) { Main(m) }
