package web

import (
	"context"
	"time"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/cachemap"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const (
	// layoutTTL is how long a page's layout shows a user or a city as read:
	// a change made through another instance (or by the command line)
	// shows within it.
	layoutTTL = 5 * time.Second
	// maxLayoutEntries bounds each of the layout's caches.
	maxLayoutEntries = 50_000
)

// layoutCache keeps what every page's header shows of the caller (name,
// email, whether to link the admin pages) and of their city, so that a
// page view reads neither again within layoutTTL. It is for display only:
// every decision (RequireAdmin, the API's answers) reads the database.
// Changes to a user through this instance forget the user at once
// (Server.UserChanged).
type layoutCache struct {
	store  *postgres.Store
	ttl    time.Duration
	now    func() time.Time
	users  *cachemap.Map[string, layoutEntry[components.User]]
	cities *cachemap.Map[string, layoutEntry[components.City]]
}

type layoutEntry[T any] struct {
	v       T
	fetched time.Time
}

func newLayoutCache(store *postgres.Store, ttl time.Duration, now func() time.Time) *layoutCache {
	return &layoutCache{store: store, ttl: ttl, now: now,
		users:  cachemap.New[string, layoutEntry[components.User]](maxLayoutEntries),
		cities: cachemap.New[string, layoutEntry[components.City]](maxLayoutEntries)}
}

// user is the header's view of user id.
func (l *layoutCache) user(ctx context.Context, id string) (components.User, error) {
	return layoutLookup(l, l.users, id, func() (components.User, error) {
		u, err := l.store.User(ctx, id)
		return components.User{Name: u.Name, Email: u.Email,
			Admin: u.Role == auth.RoleTheatreAdmin || u.Role == auth.RolePlatformAdmin}, err
	})
}

// city is the header's view of the city with slug.
func (l *layoutCache) city(ctx context.Context, slug string) (components.City, error) {
	return layoutLookup(l, l.cities, slug, func() (components.City, error) {
		c, err := l.store.CityBySlug(ctx, slug)
		return components.City{Name: c.Name, Slug: c.Slug}, err
	})
}

// layoutLookup returns m's entry of k if it was read within the TTL, else
// what read answers, remembered if found.
func layoutLookup[T any](l *layoutCache, m *cachemap.Map[string, layoutEntry[T]], k string, read func() (T, error)) (T, error) {
	now := l.now()
	if e, ok := m.Get(k); ok && now.Sub(e.fetched) < l.ttl {
		return e.v, nil
	}
	v, err := read()
	if err != nil {
		var none T
		return none, err
	}
	m.Put(k, layoutEntry[T]{v: v, fetched: now})
	return v, nil
}

// UserChanged forgets what page headers show of user id. Whatever changes
// a user's name, email or role calls it, so the user's next page shows the
// change.
func (s *Server) UserChanged(id string) { s.layout.users.Remove(id) }
