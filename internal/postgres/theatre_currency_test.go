package postgres_test

import (
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/pgtest"
)

// Theatres made before theatres had a currency take the one most of their
// shows use, the latest show's among equals; a theatre without shows
// takes INR.
func TestTheatreCurrencyMigration(t *testing.T) {
	t.Parallel()
	s := pgtest.NewStore(t, 2)
	v := pgtest.NewVenue(t, s)
	m := migrator(t, s.Pool().Config().ConnString())
	latest, _, err := m.Version()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(8); err != nil { // before 000010_theatre_currency
		t.Fatal(err)
	}
	theatre := func(name string) int64 {
		return pgtest.Scalar[int64](t, s.Pool(), `INSERT INTO theatres (city_id, name, timezone) VALUES ($1, $2, 'Europe/Lisbon') RETURNING id`, v.CityID, name)
	}
	shows := func(theatreID int64, currencies ...string) {
		screen := pgtest.Scalar[int64](t, s.Pool(), `INSERT INTO screens (theatre_id, name) VALUES ($1, 'Sala 1') RETURNING id`, theatreID)
		at := time.Now().Add(48 * time.Hour)
		for _, c := range currencies {
			pgtest.Exec(t, s.Pool(), `INSERT INTO shows (movie_id, screen_id, starts_at, ends_at, currency) VALUES ($1, $2, $3, $4, $5)`,
				v.MovieID, screen, at, at.Add(2*time.Hour), c)
			at = at.Add(3 * time.Hour)
		}
	}
	lisbon, tie, none := theatre("Cinema São Jorge"), theatre("Cinema Ideal"), theatre("Cinema Nimas")
	shows(lisbon, "EUR", "INR", "EUR")
	shows(tie, "GBP", "EUR") // one each: the latest show's
	if err := m.Migrate(latest); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]string{lisbon: "EUR", tie: "EUR", none: "INR", v.TheatreID: "INR"} {
		if got := pgtest.Scalar[string](t, s.Pool(), `SELECT currency FROM theatres WHERE id = $1`, id); got != want {
			t.Errorf("theatre %d: currency %s, want %s", id, got, want)
		}
	}
}
