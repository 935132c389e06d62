package main

import (
	"context"
	"fmt"
	"time"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

const (
	// minShows is the number of shows of the low-contention workload: at
	// least one per client.
	minShows = 64
	// showRows x showCols is the layout of every workload show; the hot
	// workload uses only its first hotRows rows.
	showRows, showCols = 10, 10
	hotRows            = 2
	// stampedeSeats is the number of seats each stampede round fights over.
	stampedeSeats = 6
	// maxSeatsPerHold is the per-hold cap passed to the store, as in production.
	maxSeatsPerHold = 10
	// password is every bench user's password.
	password = "bench-password"
)

// world is the seeded catalogue and the users the clients act as.
type world struct {
	venue     *venue
	users     []user
	manyShows []int64 // the low-contention workload
	hotShow   int64   // the hot workload
}

type user struct {
	id, email string
}

// seed creates nUsers users, nShows low-contention shows and one hot show.
func seed(ctx context.Context, s *postgres.Store, nUsers, nShows int) (*world, error) {
	v, err := newVenue(ctx, s)
	if err != nil {
		return nil, err
	}
	w := &world{venue: v}
	for i := range nShows {
		id, err := v.newShow(ctx, s, fmt.Sprintf("Screen %d", i), grid(showRows, showCols))
		if err != nil {
			return nil, err
		}
		w.manyShows = append(w.manyShows, id)
	}
	if w.hotShow, err = v.newShow(ctx, s, "Hot screen", grid(showRows, showCols)); err != nil {
		return nil, err
	}
	// bcrypt's minimum cost: logging in must not be what the HTTP run measures.
	hash, err := auth.Hasher{Cost: 4}.Hash(password)
	if err != nil {
		return nil, err
	}
	for i := range nUsers {
		u, err := s.CreateUser(ctx, fmt.Sprintf("bench-%d@example.com", i), fmt.Sprintf("Bench %d", i), hash, auth.RoleMoviegoer)
		if err != nil {
			return nil, err
		}
		w.users = append(w.users, user{id: u.ID, email: u.Email})
	}
	return w, nil
}

// venue is a theatre and a movie that shows are scheduled in, one screen each.
type venue struct {
	theatreID, movieID int64
	startsAt           time.Time
}

func newVenue(ctx context.Context, s *postgres.Store) (*venue, error) {
	cityID, err := s.CreateCity(ctx, "Benchville", "benchville")
	if err != nil {
		return nil, err
	}
	v := &venue{startsAt: time.Now().Add(7 * 24 * time.Hour).Truncate(time.Hour)}
	if v.theatreID, err = s.CreateTheatre(ctx, booking.Theatre{CityID: cityID, Name: "Bench Cinema", TimeZone: "UTC"}, nil); err != nil {
		return nil, err
	}
	if v.movieID, err = s.CreateMovie(ctx, booking.Movie{Title: "The Benchmark", DurationMinutes: 120}); err != nil {
		return nil, err
	}
	return v, nil
}

// newShow creates a screen with seats and a show on it a week from now,
// every seat category the seats use at the same price.
func (v *venue) newShow(ctx context.Context, s *postgres.Store, screen string, seats []booking.SeatSpec) (int64, error) {
	screenID, err := s.CreateScreen(ctx, v.theatreID, screen, seats)
	if err != nil {
		return 0, err
	}
	prices := map[string]int64{}
	for _, st := range seats {
		prices[st.Category] = 25000
	}
	return s.CreateShow(ctx, booking.Show{
		MovieID: v.movieID, ScreenID: screenID, StartsAt: v.startsAt, EndsAt: v.startsAt.Add(2 * time.Hour),
		Currency: "INR", Prices: prices,
	})
}

// grid returns rows x cols STANDARD seats labelled A1..A<cols>, B1, ...
func grid(rows, cols int) []booking.SeatSpec {
	var seats []booking.SeatSpec
	for r := range rows {
		for c := range cols {
			seats = append(seats, booking.SeatSpec{
				ID: seatID(r, c), Row: rowLabel(r), Number: c + 1,
				Category: "STANDARD", GridRow: r, GridCol: c,
			})
		}
	}
	return seats
}

// seatID is the label of the seat in row r (0-based) and column c (0-based).
func seatID(r, c int) string { return fmt.Sprintf("%s%d", rowLabel(r), c+1) }

// rowLabel names row r (0-based): A..Z, then AA, AB, ...
func rowLabel(r int) string {
	label := ""
	for r++; r > 0; r = (r - 1) / 26 {
		label = string(rune('A'+(r-1)%26)) + label
	}
	return label
}
