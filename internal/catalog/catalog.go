// Package catalog holds what is on: cities and their theatres, screens
// and their seat layouts, movies, and the shows scheduled of them with
// their prices, and the rules an admin's change to them keeps. Like
// booking, whose refund policy a theatre sets, it knows nothing of HTTP or
// SQL: the store in internal/postgres keeps it, the admin's use cases in
// internal/admin change it.
package catalog

// City groups theatres.
type City struct {
	ID   int64
	Name string
	Slug string
}

// Theatre is a cinema in a city; its shows are shown in its time zone.
type Theatre struct {
	ID       int64
	CityID   int64
	CityName string
	Name     string
	Address  string
	TimeZone string
	Currency string // ISO 4217: the currency its shows are priced in by default
}
