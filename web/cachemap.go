package web

import "sync"

// cacheMap is a map of at most max entries that forgets the least recently
// used ones first, in two generations: entries go into the young one, and
// when it holds max/2 the old one is dropped whole and the young one becomes
// old. An entry found in the old generation moves to the young one, so
// entries in use stay and the rest go within two generations. Every
// operation is O(1): nothing is scanned to make room. It is safe for
// concurrent use.
type cacheMap[K comparable, V any] struct {
	mu    sync.Mutex
	half  int // the most entries of a generation
	young map[K]V
	old   map[K]V
}

func newCacheMap[K comparable, V any](capacity int) *cacheMap[K, V] {
	return &cacheMap[K, V]{half: max(capacity/2, 1), young: make(map[K]V), old: make(map[K]V)}
}

// get returns the entry of k.
func (m *cacheMap[K, V]) get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lookup(k)
}

// put sets the entry of k.
func (m *cacheMap[K, V]) put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.store(k, v)
}

// update sets the entry of k to what f makes of the present one (ok: there
// is one), or forgets k when f says to keep none. k's entry does not change
// meanwhile.
func (m *cacheMap[K, V]) update(k K, f func(v V, ok bool) (V, bool)) {
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

// remove forgets k.
func (m *cacheMap[K, V]) remove(k K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.young, k)
	delete(m.old, k)
}

// len is the number of entries held.
func (m *cacheMap[K, V]) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.young) + len(m.old)
}

// lookup finds k, moving it to the young generation; m.mu is held.
func (m *cacheMap[K, V]) lookup(k K) (V, bool) {
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
func (m *cacheMap[K, V]) store(k K, v V) {
	delete(m.old, k)
	if _, ok := m.young[k]; !ok && len(m.young) >= m.half {
		m.old, m.young = m.young, make(map[K]V, m.half)
	}
	m.young[k] = v
}
