// Package catalog holds what is on: cities and their theatres, screens
// and their seat layouts, movies, and the shows scheduled of them with
// their prices, and the rules an admin's change to them keeps. Like
// booking, whose refund policy a theatre sets, it knows nothing of HTTP or
// SQL: the store in internal/postgres keeps it, the admin's use cases in
// internal/admin change it.
package catalog

import (
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
)

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

// AdminTheatre is a theatre as its admins see and set it.
type AdminTheatre struct {
	Theatre
	CitySlug       string
	CleaningBuffer time.Duration
	// Policy is the theatre's refund policy: its own tiers, or the default
	// policy when it set none.
	Policy   booking.RefundPolicy
	Settings TheatreSettings
}

// ScreenSummary is one screen of a theatre, with how many seats it has.
type ScreenSummary struct {
	ID    int64
	Name  string
	Seats int
	// Retired: it takes no new shows (see Screen.RetiredAt).
	Retired bool
}

// TheatreDetail is a theatre with its screens and its staff.
type TheatreDetail struct {
	AdminTheatre
	Screens []ScreenSummary
	Staff   []StaffMember
}

// StaffMember is an account working for a theatre, in its role there.
type StaffMember struct {
	auth.User
	StaffRole auth.StaffRole
}

// NewTheatre is a theatre to create in the city with slug City.
type NewTheatre struct {
	City           string
	Name           string
	Address        string
	TimeZone       string
	Currency       string                // ISO 4217; "": INR
	CleaningBuffer *time.Duration        // nil: the default buffer
	Policy         *booking.RefundPolicy // nil: the default policy
	Settings       TheatreSettings
}

// TheatrePatch is a change to a theatre: each nil field stays as it is.
type TheatrePatch struct {
	Name           *string
	Address        *string
	TimeZone       *string
	Currency       *string
	CleaningBuffer *time.Duration
	Policy         *booking.RefundPolicy // replaces the theatre's tiers
	Settings       TheatreSettingsPatch
}
