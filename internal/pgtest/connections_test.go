package pgtest

import (
	"context"
	"slices"
	"testing"
)

// heldSlots lists the connection slots this process's admin connection
// holds, as the server sees them.
func heldSlots(t *testing.T) []int32 {
	t.Helper()
	slots, err := adminList[int32](context.Background(), `
		SELECT objid::int FROM pg_locks
		 WHERE locktype = 'advisory' AND granted AND classid = $1 AND objsubid = 2
		   AND pid = pg_backend_pid()
		 ORDER BY 1`, connClass)
	if err != nil {
		t.Fatal(err)
	}
	return slots
}

// Reservations of one process take distinct slots (advisory locks are
// re-entrant, so a second lock of a held slot would count it twice), and
// a test's slots are given back when it ends.
func TestReserve(t *testing.T) {
	ensureServer(t)
	before := heldSlots(t)
	var first, second []int32
	t.Run("two reservations at once", func(t *testing.T) {
		Reserve(t, 3)
		first = heldSlots(t)
		t.Run("the second", func(t *testing.T) {
			Reserve(t, 2)
			second = heldSlots(t)
		})
	})
	if len(first) != len(before)+3 {
		t.Errorf("after a reservation of 3 the process holds %v, before %v", first, before)
	}
	if len(second) != len(first)+2 || len(slices.Compact(slices.Clone(second))) != len(second) {
		t.Errorf("after a second reservation of 2 the process holds %v, after the first %v", second, first)
	}
	if after := heldSlots(t); !slices.Equal(after, before) {
		t.Errorf("after the tests ended the process holds %v, before %v", after, before)
	}
	server.mu.Lock()
	n := len(server.held)
	server.mu.Unlock()
	if n != len(before) {
		t.Errorf("the process remembers %d held slots, the server has %d", n, len(before))
	}
}
