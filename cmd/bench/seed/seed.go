// Package seed creates what the benchmarks book against: a venue, shows on
// screens of seats in a grid, and moviegoers who share one password.
package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const (
	// MinShows is the number of shows of the low-contention workload: at
	// least one per client.
	MinShows = 64
	// ShowRows x ShowCols is the layout of every workload show; the hot
	// workload uses only its first HotRows rows.
	ShowRows, ShowCols = 10, 10
	HotRows            = 2
	// MaxSeatsPerHold is the per-hold cap passed to the store, as in
	// production.
	MaxSeatsPerHold = 10
	// Password is every seeded user's password.
	Password = "bench-password"
)

// World is the seeded catalogue and the users the clients act as.
type World struct {
	Venue     *Venue
	Users     []User
	ManyShows []int64 // the low-contention workload
	HotShow   int64   // the hot workload
}

// User is a seeded moviegoer.
type User struct {
	ID, Email string
}

// Seed creates nUsers users, nShows low-contention shows and one hot show.
func Seed(ctx context.Context, s *postgres.Store, nUsers, nShows int) (*World, error) {
	v, err := NewVenue(ctx, s)
	if err != nil {
		return nil, err
	}
	w := &World{Venue: v}
	for i := range nShows {
		id, err := v.NewShow(ctx, s, fmt.Sprintf("Screen %d", i), Grid(ShowRows, ShowCols))
		if err != nil {
			return nil, err
		}
		w.ManyShows = append(w.ManyShows, id)
	}
	if w.HotShow, err = v.NewShow(ctx, s, "Hot screen", Grid(ShowRows, ShowCols)); err != nil {
		return nil, err
	}
	if w.Users, err = Users(ctx, s, "", nUsers); err != nil {
		return nil, err
	}
	return w, nil
}

// Users creates n moviegoers, bench-<prefix>-<i>@example.com, or
// bench-<i>@example.com without a prefix.
func Users(ctx context.Context, s *postgres.Store, prefix string, n int) ([]User, error) {
	// bcrypt's minimum cost: logging in must not be what the HTTP run measures.
	hash, err := auth.Hasher{Cost: 4}.Hash(Password)
	if err != nil {
		return nil, fmt.Errorf("seed users: %w", err)
	}
	var out []User
	for i := range n {
		email, name := fmt.Sprintf("bench-%d@example.com", i), fmt.Sprintf("Bench %d", i)
		if prefix != "" {
			email, name = fmt.Sprintf("bench-%s-%d@example.com", prefix, i), fmt.Sprintf("Bench %s %d", prefix, i)
		}
		u, err := s.CreateUser(ctx, email, name, hash, auth.RoleMoviegoer)
		if err != nil {
			return nil, fmt.Errorf("seed users: %w", err)
		}
		out = append(out, User{ID: u.ID, Email: u.Email})
	}
	return out, nil
}

// Admin creates a platform admin, bench-admin@example.com, with the
// moviegoers' password: who sets a show's waiting room through the admin
// API.
func Admin(ctx context.Context, s *postgres.Store) (User, error) {
	hash, err := auth.Hasher{Cost: 4}.Hash(Password)
	if err != nil {
		return User{}, fmt.Errorf("seed the admin: %w", err)
	}
	u, err := s.CreateUser(ctx, "bench-admin@example.com", "Bench Admin", hash, auth.RolePlatformAdmin)
	if err != nil {
		return User{}, fmt.Errorf("seed the admin: %w", err)
	}
	return User{ID: u.ID, Email: u.Email}, nil
}

// Venue is a theatre and a movie that shows are scheduled in, one screen each.
type Venue struct {
	TheatreID, MovieID int64
	StartsAt           time.Time
}

// NewVenue creates a city, a theatre and a movie; its shows start a week
// from now.
func NewVenue(ctx context.Context, s *postgres.Store) (*Venue, error) {
	cityID, err := s.CreateCity(ctx, "Benchville", "benchville")
	if err != nil {
		return nil, fmt.Errorf("seed the venue: %w", err)
	}
	v := &Venue{StartsAt: time.Now().Add(7 * 24 * time.Hour).Truncate(time.Hour)}
	if v.TheatreID, err = s.CreateTheatre(ctx, catalog.Theatre{CityID: cityID, Name: "Bench Cinema", TimeZone: "UTC"}, nil); err != nil {
		return nil, fmt.Errorf("seed the venue: %w", err)
	}
	if v.MovieID, err = s.CreateMovie(ctx, catalog.Movie{Title: "The Benchmark", DurationMinutes: 120}); err != nil {
		return nil, fmt.Errorf("seed the venue: %w", err)
	}
	return v, nil
}

// NewShow creates a screen with seats and a show on it, every seat
// category the seats use at the same price.
func (v *Venue) NewShow(ctx context.Context, s *postgres.Store, screen string, seats []catalog.SeatSpec) (int64, error) {
	screenID, err := s.CreateScreen(ctx, v.TheatreID, screen, seats)
	if err != nil {
		return 0, fmt.Errorf("seed %s: %w", screen, err)
	}
	prices := map[string]int64{}
	for _, st := range seats {
		prices[st.Category] = 25000
	}
	id, err := s.CreateShow(ctx, catalog.Show{
		MovieID: v.MovieID, ScreenID: screenID, StartsAt: v.StartsAt, EndsAt: v.StartsAt.Add(2 * time.Hour),
		Currency: "INR", Prices: prices,
	})
	if err != nil {
		return 0, fmt.Errorf("seed %s: %w", screen, err)
	}
	return id, nil
}

// Grid returns rows x cols STANDARD seats labelled A1..A<cols>, B1, ...
func Grid(rows, cols int) []catalog.SeatSpec {
	var seats []catalog.SeatSpec
	for r := range rows {
		for c := range cols {
			seats = append(seats, catalog.SeatSpec{
				ID: SeatID(r, c), Row: RowLabel(r), Number: c + 1,
				Category: "STANDARD", GridRow: r, GridCol: c,
			})
		}
	}
	return seats
}

// SeatID is the label of the seat in row r (0-based) and column c (0-based).
func SeatID(r, c int) string { return fmt.Sprintf("%s%d", RowLabel(r), c+1) }

// RowLabel names row r (0-based): A..Z, then AA, AB, ...
func RowLabel(r int) string {
	label := ""
	for r++; r > 0; r = (r - 1) / 26 {
		label = string(rune('A'+(r-1)%26)) + label
	}
	return label
}
