package pgtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Venue is a city, a theatre and a movie that shows can be scheduled in.
type Venue struct {
	CityID    int64
	TheatreID int64
	MovieID   int64
}

// NewVenue creates a city, a theatre in Asia/Kolkata with the default refund
// policy and without the orphan rule (as Store.CreateTheatre makes one:
// the rule's own tests turn it on), and a two-hour movie.
func NewVenue(tb testing.TB, s *postgres.Store) Venue {
	tb.Helper()
	ctx := context.Background()
	var v Venue
	var err error
	slug := fmt.Sprintf("city-%d", time.Now().UnixNano())
	if v.CityID, err = s.CreateCity(ctx, "Testville", slug); err != nil {
		tb.Fatal(err)
	}
	if v.TheatreID, err = s.CreateTheatre(ctx, catalog.Theatre{CityID: v.CityID, Name: "Test Cinema", TimeZone: "Asia/Kolkata"}, nil); err != nil {
		tb.Fatal(err)
	}
	if v.MovieID, err = s.CreateMovie(ctx, catalog.Movie{Title: "The Last Algorithm", DurationMinutes: 120}); err != nil {
		tb.Fatal(err)
	}
	return v
}

// Grid returns rows x cols seats labelled A1, A2, ..., all STANDARD except
// the last row, which is PREMIUM.
func Grid(rows, cols int) []catalog.SeatSpec {
	var seats []catalog.SeatSpec
	for r := 0; r < rows; r++ {
		row := string(rune('A' + r))
		category := "STANDARD"
		if r == rows-1 {
			category = "PREMIUM"
		}
		for c := 0; c < cols; c++ {
			seats = append(seats, catalog.SeatSpec{
				ID: fmt.Sprintf("%s%d", row, c+1), Row: row, Number: c + 1,
				Category: category, GridRow: r, GridCol: c,
			})
		}
	}
	return seats
}

// Prices are the fixture prices in INR minor units.
var Prices = map[string]int64{"STANDARD": 25000, "PREMIUM": 45000}

// NewShow creates a screen of rows x cols seats in v and a show on it
// starting at startsAt, and returns the show id.
func NewShow(tb testing.TB, s *postgres.Store, v Venue, rows, cols int, startsAt time.Time) int64 {
	tb.Helper()
	ctx := context.Background()
	screenID, err := s.CreateScreen(ctx, v.TheatreID, fmt.Sprintf("Screen %d", time.Now().UnixNano()), Grid(rows, cols))
	if err != nil {
		tb.Fatal(err)
	}
	showID, err := s.CreateShow(ctx, catalog.Show{
		MovieID: v.MovieID, ScreenID: screenID, StartsAt: startsAt, EndsAt: startsAt.Add(2 * time.Hour),
		Currency: "INR", Prices: Prices,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return showID
}
