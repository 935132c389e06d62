package cachemap_test

import (
	"testing"

	"github.com/marquee-tickets/marquee/internal/cachemap"
)

func TestCacheMap(t *testing.T) {
	m := cachemap.New[int, int](4)
	for i := range 4 {
		m.Put(i, i)
	}
	m.Get(0) // in use: kept
	m.Put(4, 4)
	m.Put(5, 5) // 1 and 2, the least recently used, are gone
	for k, want := range map[int]bool{0: true, 1: false, 2: false, 4: true, 5: true} {
		if _, ok := m.Get(k); ok != want {
			t.Errorf("key %d held = %v, want %v", k, ok, want)
		}
	}
	if n := m.Len(); n > 4 {
		t.Fatalf("%d entries, want at most 4", n)
	}
	m.Update(0, func(v int, ok bool) (int, bool) { return v, false })
	if _, ok := m.Get(0); ok {
		t.Fatal("update that keeps none left the entry")
	}
}
