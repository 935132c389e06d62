// Package cachemap is a bounded map for caches: it forgets the least
// recently used entries first, at a cost of O(1) for every operation.
package cachemap

import "sync"

// Map is a map of at most its capacity's entries that forgets the least
// recently used ones first, in two generations: entries go into the young
// one, and when it holds half the capacity the old one is dropped whole and
// the young one becomes old. An entry found in the old generation moves to
// the young one, so entries in use stay and the rest go within two
// generations. Nothing is scanned to make room. It is safe for concurrent
// use.
type Map[K comparable, V any] struct {
	mu    sync.Mutex
	half  int // the most entries of a generation
	young map[K]V
	old   map[K]V
}

// New returns an empty Map of at most capacity entries.
func New[K comparable, V any](capacity int) *Map[K, V] {
	return &Map[K, V]{half: max(capacity/2, 1), young: make(map[K]V), old: make(map[K]V)}
}

// Get returns the entry of k.
func (m *Map[K, V]) Get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lookup(k)
}

// Put sets the entry of k.
func (m *Map[K, V]) Put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.store(k, v)
}

// Update sets the entry of k to what f makes of the present one (ok: there
// is one), or forgets k when f says to keep none. k's entry does not change
// meanwhile.
func (m *Map[K, V]) Update(k K, f func(v V, ok bool) (V, bool)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.lookup(k)
	v, keep := f(old, ok)
	if !keep {
		delete(m.young, k)
		delete(m.old, k)
		return
	}
	m.store(k, v)
}

// Remove forgets k.
func (m *Map[K, V]) Remove(k K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.young, k)
	delete(m.old, k)
}

// Len is the number of entries held.
func (m *Map[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.young) + len(m.old)
}

// lookup finds k, moving it to the young generation; m.mu is held.
func (m *Map[K, V]) lookup(k K) (V, bool) {
	if v, ok := m.young[k]; ok {
		return v, true
	}
	v, ok := m.old[k]
	if ok {
		m.store(k, v)
	}
	return v, ok
}

// store sets k in the young generation; m.mu is held.
func (m *Map[K, V]) store(k K, v V) {
	delete(m.old, k)
	if _, ok := m.young[k]; !ok && len(m.young) >= m.half {
		m.old, m.young = m.young, make(map[K]V, m.half)
	}
	m.young[k] = v
}
