package admin_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// epoch is the fixture clock's start: before the 2027 changes of clocks
// the tests schedule across.
var epoch = time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)

// world is a theatre with a 3x4 screen (rows A-B STANDARD, C PREMIUM), a
// 100-minute movie and a platform admin, on a fresh database with a
// controllable clock.
type world struct {
	t        *testing.T
	store    *postgres.Store
	clock    *pgtest.Clock
	svc      *admin.Service
	city     int64
	theatre  int64
	screen   int64
	movie    int64
	platform admin.Actor
}

func newWorld(t *testing.T, timeZone string) *world {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, 6)
	clock := pgtest.NewClock(epoch)
	s.Clock = clock.Now
	w := &world{t: t, store: s, clock: clock, svc: &admin.Service{Store: s}}
	var err error
	if w.city, err = s.CreateCity(t.Context(), "Testville", fmt.Sprintf("testville-%d", time.Now().UnixNano())); err != nil {
		t.Fatal(err)
	}
	w.theatre = w.newTheatre("Test Cinema", timeZone)
	w.screen = w.newScreen(w.theatre)
	if w.movie, err = s.CreateMovie(t.Context(), catalog.Movie{Title: "The Last Algorithm", DurationMinutes: 100}); err != nil {
		t.Fatal(err)
	}
	w.platform = w.admin(auth.RolePlatformAdmin)
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	return w
}

func (w *world) newTheatre(name, timeZone string) int64 {
	w.t.Helper()
	id, err := w.store.CreateTheatre(w.t.Context(), catalog.Theatre{CityID: w.city, Name: name, TimeZone: timeZone}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	return id
}

func (w *world) newScreen(theatre int64) int64 {
	w.t.Helper()
	id, err := w.store.CreateScreen(w.t.Context(), theatre, fmt.Sprintf("Screen %d", time.Now().UnixNano()), pgtest.Grid(3, 4))
	if err != nil {
		w.t.Fatal(err)
	}
	return id
}

// admin is a new account with role, granted the theatres given.
func (w *world) admin(role auth.Role, theatres ...int64) admin.Actor {
	w.t.Helper()
	id := pgtest.User(w.t, w.store)
	pgtest.Exec(w.t, w.store.Pool(), `UPDATE users SET role = $2 WHERE id = $1`, id, role)
	for _, t := range theatres {
		pgtest.Exec(w.t, w.store.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, 'manager')`, t, id)
	}
	a, err := w.svc.Actor(w.t.Context(), id)
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

func (w *world) terms() admin.ShowTerms {
	return admin.ShowTerms{Currency: "INR", Prices: maps.Clone(pgtest.Prices)}
}

func (w *world) newShow(at time.Time) admin.NewShow {
	return admin.NewShow{ScreenID: w.screen, MovieID: w.movie, StartsAt: at, ShowTerms: w.terms()}
}

func (w *world) create(at time.Time) admin.ScheduledShow {
	w.t.Helper()
	sh, err := w.svc.CreateShow(w.t.Context(), w.platform, w.newShow(at))
	if err != nil {
		w.t.Fatalf("create show at %s: %v", at, err)
	}
	return sh
}

func (w *world) count(sql string, args ...any) int {
	w.t.Helper()
	return pgtest.Scalar[int](w.t, w.store.Pool(), sql, args...)
}

// shows is how many shows the world has, and their seats and prices.
func (w *world) shows() string {
	w.t.Helper()
	return fmt.Sprintf("shows=%d seats=%d prices=%d audit=%d", w.count(`SELECT count(*) FROM shows`),
		w.count(`SELECT count(*) FROM show_seats`), w.count(`SELECT count(*) FROM show_prices`),
		w.count(`SELECT count(*) FROM audit_log`))
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var fe *catalog.FieldError
	if !errors.As(err, &fe) || fe.Field != field {
		t.Fatalf("err = %v, want a problem with %s", err, field)
	}
}

func TestCreateShow(t *testing.T) {
	t.Run("ends after the runtime and the cleaning buffer, seats on sale at once, audited", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		pgtest.Exec(t, w.store.Pool(), `UPDATE theatres SET cleaning_buffer = interval '20 minutes' WHERE id = $1`, w.theatre)
		at := epoch.Add(48 * time.Hour)
		sh := w.create(at.In(time.FixedZone("IST", 19800)))
		if !sh.StartsAt.Equal(at) || !sh.EndsAt.Equal(at.Add(120*time.Minute)) || sh.StartsAt.Location() != time.UTC {
			t.Fatalf("scheduled = %+v, want %s to +2h in UTC", sh, at)
		}
		if n := w.count(`SELECT count(*) FROM show_seats WHERE show_id = $1 AND status = 'AVAILABLE'`, sh.ID); n != 12 {
			t.Fatalf("%d seats on sale, want 12", n)
		}
		u := pgtest.User(t, w.store)
		if _, err := w.store.HoldSeats(t.Context(), booking.HoldRequest{UserID: u, ShowID: sh.ID, Seats: []string{"C1"}, TTL: time.Minute, Key: "k"}, 10); err != nil {
			t.Fatalf("hold on the new show: %v", err)
		}
		if n := w.count(`SELECT count(*) FROM audit_log WHERE action = 'show.create' AND object = $1 AND actor_id = $2 AND theatre_id = $3
		                   AND (after->>'id')::bigint = $4`, fmt.Sprintf("show %d", sh.ID), w.platform.UserID, w.theatre, sh.ID); n != 1 {
			t.Fatalf("%d audit entries for the new show, want 1", n)
		}
	})

	t.Run("an overlap is refused naming the show in the way", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		first := w.create(epoch.Add(48 * time.Hour))
		before := w.shows()
		// 100 min + 15 min buffer: a start 1h54m later still overlaps.
		_, err := w.svc.CreateShow(t.Context(), w.platform, w.newShow(epoch.Add(48*time.Hour+114*time.Minute)))
		var overlap *catalog.ShowOverlapError
		if !errors.As(err, &overlap) || overlap.ConflictingShowID != first.ID || !errors.Is(err, catalog.ErrShowOverlap) {
			t.Fatalf("err = %v, want an overlap with show %d", err, first.ID)
		}
		if after := w.shows(); after != before {
			t.Fatalf("refused show changed the database: %s -> %s", before, after)
		}
		w.create(epoch.Add(48*time.Hour + 115*time.Minute)) // right after the buffer: fine
	})

	t.Run("a cancelled show is not in the way", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		first := w.create(epoch.Add(48 * time.Hour))
		pgtest.Exec(t, w.store.Pool(), `UPDATE shows SET status = 'CANCELLED', cancelled_at = $2 WHERE id = $1`, first.ID, epoch)
		w.create(epoch.Add(48 * time.Hour))
	})

	t.Run("a start in the past or now is refused", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		before := w.shows()
		for _, at := range []time.Time{epoch.Add(-time.Minute), epoch} {
			if _, err := w.svc.CreateShow(t.Context(), w.platform, w.newShow(at)); !errors.Is(err, catalog.ErrShowInPast) {
				t.Fatalf("start %s: err = %v, want ErrShowInPast", at, err)
			}
		}
		if after := w.shows(); after != before {
			t.Fatalf("database changed: %s -> %s", before, after)
		}
		w.create(epoch.Add(time.Second))
	})

	t.Run("bad terms are refused, naming what to fix", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		before := w.shows()
		at := epoch.Add(24 * time.Hour)
		with := func(f func(*admin.NewShow)) error {
			n := w.newShow(at)
			f(&n)
			_, err := w.svc.CreateShow(t.Context(), w.platform, n)
			return err
		}
		var missing *catalog.MissingPricesError
		err := with(func(n *admin.NewShow) { n.Prices = map[string]int64{"STANDARD": 100} })
		if !errors.As(err, &missing) || !slices.Equal(missing.Categories, []string{"PREMIUM"}) {
			t.Fatalf("no PREMIUM price: err = %v", err)
		}
		err = with(func(n *admin.NewShow) { n.Prices = nil })
		if !errors.As(err, &missing) || !slices.Equal(missing.Categories, []string{"PREMIUM", "STANDARD"}) {
			t.Fatalf("no prices: err = %v", err)
		}
		wantField(t, with(func(n *admin.NewShow) { n.Prices["BALCONY"] = 1 }), "prices")
		wantField(t, with(func(n *admin.NewShow) { n.Prices["STANDARD"] = -1 }), "prices")
		for _, c := range []string{"", "inr", "RUPEES", "IN"} {
			wantField(t, with(func(n *admin.NewShow) { n.Currency = c }), "currency")
		}
		wantField(t, with(func(n *admin.NewShow) { n.MovieID = 9999 }), "movie_id")
		wantField(t, with(func(n *admin.NewShow) { n.Format = "8K" }), "format")
		if err := with(func(n *admin.NewShow) { n.ScreenID = 9999 }); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("unknown screen: err = %v, want not found", err)
		}
		if after := w.shows(); after != before {
			t.Fatalf("database changed: %s -> %s", before, after)
		}
	})
}

func TestScheduleShows(t *testing.T) {
	series := func(w *world, from, to string, times ...string) admin.ShowSeries {
		return admin.ShowSeries{ScreenID: w.screen, MovieID: w.movie, From: from, To: to, Times: times, ShowTerms: w.terms()}
	}
	starts := func(shows []admin.ScheduledShow) []string {
		var out []string
		for _, s := range shows {
			out = append(out, s.StartsAt.Format(time.RFC3339))
		}
		return out
	}

	t.Run("the same wall time moves an hour in UTC across a change of clocks in London", func(t *testing.T) {
		w := newWorld(t, "Europe/London")
		// British Summer Time starts at 01:00 UTC on Sunday 28 March 2027.
		shows, err := w.svc.ScheduleShows(t.Context(), w.platform, series(w, "2027-03-27", "2027-03-29", "10:00", "21:30"))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"2027-03-27T10:00:00Z", "2027-03-27T21:30:00Z", "2027-03-28T09:00:00Z",
			"2027-03-28T20:30:00Z", "2027-03-29T09:00:00Z", "2027-03-29T20:30:00Z"}
		if got := starts(shows); !slices.Equal(got, want) {
			t.Fatalf("starts = %v, want %v", got, want)
		}
		if n := w.count(`SELECT count(*) FROM shows WHERE screen_id = $1`, w.screen); n != 6 {
			t.Fatalf("%d shows, want 6", n)
		}
		if n := w.count(`SELECT count(*) FROM audit_log WHERE action = 'show.schedule' AND jsonb_array_length(after->'shows') = 6`); n != 1 {
			t.Fatalf("%d audit entries for the series, want 1", n)
		}
	})

	t.Run("a time the clocks skip is refused, naming the day", func(t *testing.T) {
		w := newWorld(t, "America/New_York")
		// Clocks go from 02:00 to 03:00 on Sunday 14 March 2027.
		_, err := w.svc.ScheduleShows(t.Context(), w.platform, series(w, "2027-03-13", "2027-03-15", "02:30"))
		wantField(t, err, "times")
		if msg := err.Error(); !containsAll(msg, "02:30", "2027-03-14") {
			t.Fatalf("message %q does not name the day and time", msg)
		}
		if n := w.count(`SELECT count(*) FROM shows`); n != 0 {
			t.Fatalf("%d shows created, want none", n)
		}
	})

	t.Run("a time the clocks go through twice is the first", func(t *testing.T) {
		w := newWorld(t, "America/New_York")
		// Clocks go from 02:00 back to 01:00 on Sunday 7 November 2027.
		shows, err := w.svc.ScheduleShows(t.Context(), w.platform, series(w, "2027-11-07", "2027-11-07", "01:30"))
		if err != nil {
			t.Fatal(err)
		}
		if got := starts(shows); !slices.Equal(got, []string{"2027-11-07T05:30:00Z"}) {
			t.Fatalf("starts = %v, want 01:30 EDT", got)
		}
	})

	t.Run("an overlap with a scheduled show anywhere creates nothing", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		loc, _ := time.LoadLocation("Asia/Kolkata")
		inWay := w.create(time.Date(2027, 3, 12, 11, 0, 0, 0, loc))
		before := w.shows()
		_, err := w.svc.ScheduleShows(t.Context(), w.platform, series(w, "2027-03-10", "2027-03-14", "10:00", "18:00"))
		var overlap *catalog.ScheduleOverlapError
		if !errors.As(err, &overlap) || overlap.ConflictingShowID != inWay.ID ||
			!overlap.StartsAt.Equal(time.Date(2027, 3, 12, 10, 0, 0, 0, loc)) {
			t.Fatalf("err = %v, want the 12 March 10:00 show refused for show %d", err, inWay.ID)
		}
		var generic *catalog.ShowOverlapError
		if !errors.As(err, &generic) || generic.ConflictingShowID != inWay.ID {
			t.Fatalf("err = %v is not a ShowOverlapError naming %d", err, inWay.ID)
		}
		if after := w.shows(); after != before {
			t.Fatalf("database changed: %s -> %s", before, after)
		}
	})

	t.Run("shows of one series that overlap each other create nothing", func(t *testing.T) {
		w := newWorld(t, "Asia/Kolkata")
		_, err := w.svc.ScheduleShows(t.Context(), w.platform, series(w, "2027-03-10", "2027-03-11", "10:00", "11:00"))
		var overlap *catalog.ScheduleOverlapError
		if !errors.As(err, &overlap) || overlap.ConflictingShowID != 0 || !errors.Is(err, catalog.ErrShowOverlap) {
			t.Fatalf("err = %v, want an overlap within the series", err)
		}
		if n := w.count(`SELECT count(*) FROM shows`); n != 0 {
			t.Fatalf("%d shows created, want none", n)
		}
	})

	t.Run("a show of the series in the past creates nothing", func(t *testing.T) {
		w := newWorld(t, "UTC")
		_, err := w.svc.ScheduleShows(t.Context(), w.platform, series(w, "2027-03-01", "2027-03-03", "11:00", "13:00"))
		if !errors.Is(err, catalog.ErrShowInPast) {
			t.Fatalf("err = %v, want ErrShowInPast (11:00 on 1 March is before the clock)", err)
		}
		if n := w.count(`SELECT count(*) FROM shows`); n != 0 {
			t.Fatalf("%d shows created, want none", n)
		}
	})

	t.Run("bad series are refused", func(t *testing.T) {
		w := newWorld(t, "UTC")
		for name, c := range map[string]struct {
			s     admin.ShowSeries
			field string
		}{
			"bad from":       {series(w, "10/03/2027", "2027-03-11", "10:00"), "from"},
			"bad to":         {series(w, "2027-03-10", "", "10:00"), "to"},
			"to before from": {series(w, "2027-03-10", "2027-03-09", "10:00"), "to"},
			"no times":       {series(w, "2027-03-10", "2027-03-11"), "times"},
			"bad time":       {series(w, "2027-03-10", "2027-03-11", "9:30"), "times"},
			"24:00":          {series(w, "2027-03-10", "2027-03-11", "24:00"), "times"},
			"twice a time":   {series(w, "2027-03-10", "2027-03-11", "10:00", "10:00"), "times"},
			"202 shows":      {series(w, "2027-03-10", "2027-06-18", "10:00", "22:00"), "times"},
			"ages":           {series(w, "2027-03-10", "9999-12-31", "10:00"), "times"},
		} {
			if _, err := w.svc.ScheduleShows(t.Context(), w.platform, c.s); err == nil {
				t.Errorf("%s: accepted", name)
			} else {
				var fe *catalog.FieldError
				if !errors.As(err, &fe) || fe.Field != c.field {
					t.Errorf("%s: err = %v, want a problem with %s", name, err, c.field)
				}
			}
		}
		// 200 is the limit, not over it.
		if shows, err := w.svc.ScheduleShows(t.Context(), w.platform, series(w, "2027-03-10", "2027-06-17", "10:00")); err != nil || len(shows) != 100 {
			t.Fatalf("100 days: %d shows, %v", len(shows), err)
		}
		if n := w.count(`SELECT count(*) FROM shows`); n != 100 {
			t.Fatalf("%d shows, want the 100 of the one good series", n)
		}
	})
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestWallTime(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	lord, _ := time.LoadLocation("Australia/Lord_Howe") // a half-hour change of clocks
	for _, c := range []struct {
		loc       *time.Location
		day       time.Time
		hour, min int
		want      string // "" for a time that does not exist
	}{
		{ny, time.Date(2027, 3, 14, 0, 0, 0, 0, time.UTC), 1, 59, "2027-03-14T06:59:00Z"},
		{ny, time.Date(2027, 3, 14, 0, 0, 0, 0, time.UTC), 2, 0, ""},
		{ny, time.Date(2027, 3, 14, 0, 0, 0, 0, time.UTC), 2, 59, ""},
		{ny, time.Date(2027, 3, 14, 0, 0, 0, 0, time.UTC), 3, 0, "2027-03-14T07:00:00Z"},
		{ny, time.Date(2027, 11, 7, 0, 0, 0, 0, time.UTC), 1, 0, "2027-11-07T05:00:00Z"},
		{ny, time.Date(2027, 11, 7, 0, 0, 0, 0, time.UTC), 2, 0, "2027-11-07T07:00:00Z"},
		{lord, time.Date(2027, 10, 3, 0, 0, 0, 0, time.UTC), 2, 15, ""},
		{lord, time.Date(2027, 10, 3, 0, 0, 0, 0, time.UTC), 2, 30, "2027-10-02T15:30:00Z"},
	} {
		at, ok := admin.WallTime(c.day.Year(), c.day.Month(), c.day.Day(), c.hour, c.min, c.loc)
		got := ""
		if ok {
			got = at.UTC().Format(time.RFC3339)
		}
		if got != c.want {
			t.Errorf("%s %02d:%02d in %s = %q, want %q", c.day.Format(time.DateOnly), c.hour, c.min, c.loc, got, c.want)
		}
	}
}

func (w *world) hold(show int64, seats ...string) booking.Hold {
	w.t.Helper()
	res, err := w.store.HoldSeats(w.t.Context(), booking.HoldRequest{UserID: pgtest.User(w.t, w.store), ShowID: show, Seats: seats,
		TTL: 5 * time.Minute, Key: fmt.Sprintf("key-%d", time.Now().UnixNano())}, 10)
	if err != nil {
		w.t.Fatalf("hold %v: %v", seats, err)
	}
	return res.Hold
}

func (w *world) prices(show int64) map[string]int64 {
	w.t.Helper()
	return pgtest.Scalar[map[string]int64](w.t, w.store.Pool(),
		`SELECT jsonb_object_agg(category, price_minor) FROM show_prices WHERE show_id = $1`, show)
}

func TestSetPrices(t *testing.T) {
	newPrices := map[string]int64{"STANDARD": 30000, "PREMIUM": 50000}

	t.Run("before any sale the prices change, audited before and after, and holds pay them", func(t *testing.T) {
		w := newWorld(t, "UTC")
		sh := w.create(epoch.Add(24 * time.Hour))
		got, err := w.svc.SetPrices(t.Context(), w.platform, sh.ID, newPrices)
		if err != nil || !maps.Equal(got, newPrices) || !maps.Equal(w.prices(sh.ID), newPrices) {
			t.Fatalf("set prices = %v, %v; stored %v", got, err, w.prices(sh.ID))
		}
		if n := w.count(`SELECT count(*) FROM audit_log WHERE action = 'show.set_prices' AND object = $1
		                   AND before->'prices'->>'STANDARD' = '25000' AND after->'prices'->>'STANDARD' = '30000'`,
			fmt.Sprintf("show %d", sh.ID)); n != 1 {
			t.Fatalf("%d audit entries of the change, want 1", n)
		}
		if h := w.hold(sh.ID, "A1", "C1"); h.AmountMinor != 80000 {
			t.Fatalf("hold after the change costs %d, want 80000", h.AmountMinor)
		}
	})

	t.Run("a live hold keeps the prices; once it lapses they change", func(t *testing.T) {
		w := newWorld(t, "UTC")
		sh := w.create(epoch.Add(24 * time.Hour))
		w.hold(sh.ID, "B2")
		if _, err := w.svc.SetPrices(t.Context(), w.platform, sh.ID, newPrices); !errors.Is(err, catalog.ErrShowHasSales) {
			t.Fatalf("err = %v, want ErrShowHasSales", err)
		}
		if !maps.Equal(w.prices(sh.ID), pgtest.Prices) || w.count(`SELECT count(*) FROM audit_log WHERE action = 'show.set_prices'`) != 0 {
			t.Fatalf("refused change left prices %v", w.prices(sh.ID))
		}
		w.clock.Advance(5 * time.Minute) // exactly at expiry: lapsed
		if _, err := w.svc.SetPrices(t.Context(), w.platform, sh.ID, newPrices); err != nil {
			t.Fatalf("after the hold lapsed: %v", err)
		}
	})

	t.Run("a booked seat keeps the prices", func(t *testing.T) {
		w := newWorld(t, "UTC")
		sh := w.create(epoch.Add(24 * time.Hour))
		h := w.hold(sh.ID, "A1")
		if _, err := w.store.ConfirmPayment(t.Context(), booking.Payment{ID: "pay-1", HoldRef: h.ID, AmountMinor: h.AmountMinor, Currency: h.Currency}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.SetPrices(t.Context(), w.platform, sh.ID, newPrices); !errors.Is(err, catalog.ErrShowHasSales) {
			t.Fatalf("err = %v, want ErrShowHasSales", err)
		}
	})

	t.Run("the price rules of scheduling apply", func(t *testing.T) {
		w := newWorld(t, "UTC")
		sh := w.create(epoch.Add(24 * time.Hour))
		var missing *catalog.MissingPricesError
		if _, err := w.svc.SetPrices(t.Context(), w.platform, sh.ID, map[string]int64{"STANDARD": 1}); !errors.As(err, &missing) {
			t.Fatalf("err = %v, want missing prices", err)
		}
		_, err := w.svc.SetPrices(t.Context(), w.platform, sh.ID, map[string]int64{"STANDARD": 1, "PREMIUM": -5})
		wantField(t, err, "prices")
		_, err = w.svc.SetPrices(t.Context(), w.platform, sh.ID, map[string]int64{"STANDARD": 1, "PREMIUM": 5, "VIP": 9})
		wantField(t, err, "prices")
		if !maps.Equal(w.prices(sh.ID), pgtest.Prices) {
			t.Fatalf("refused changes left prices %v", w.prices(sh.ID))
		}
	})

	t.Run("a cancelled show keeps its prices", func(t *testing.T) {
		w := newWorld(t, "UTC")
		sh := w.create(epoch.Add(24 * time.Hour))
		pgtest.Exec(t, w.store.Pool(), `UPDATE shows SET status = 'CANCELLED', cancelled_at = $2 WHERE id = $1`, sh.ID, epoch)
		if _, err := w.svc.SetPrices(t.Context(), w.platform, sh.ID, newPrices); !errors.Is(err, catalog.ErrShowCancelled) {
			t.Fatalf("err = %v, want ErrShowCancelled", err)
		}
	})
}

func TestTheatreShows(t *testing.T) {
	w := newWorld(t, "Asia/Kolkata")
	loc, _ := time.LoadLocation("Asia/Kolkata")
	day := func(d, h int) time.Time { return time.Date(2027, 3, d, h, 0, 0, 0, loc) }
	a := w.create(day(2, 10))
	b := w.create(day(2, 23)) // 17:30 UTC: still 2 March in the theatre
	c := w.create(day(4, 10))
	w.hold(a.ID, "A1", "A2")
	pgtest.Exec(t, w.store.Pool(), `UPDATE show_seats SET status = 'BLOCKED' WHERE show_id = $1 AND seat_id = 'C4'`, a.ID)
	pgtest.Exec(t, w.store.Pool(), `UPDATE shows SET status = 'CANCELLED', cancelled_at = $2 WHERE id = $1`, c.ID, epoch)

	ids := func(shows []catalog.TheatreShow) []int64 {
		var out []int64
		for _, s := range shows {
			out = append(out, s.ID)
		}
		return out
	}
	list := func(from, to time.Time) []catalog.TheatreShow {
		t.Helper()
		shows, err := w.svc.TheatreShows(t.Context(), w.platform, w.theatre, from, to)
		if err != nil {
			t.Fatal(err)
		}
		return shows
	}
	all := list(time.Time{}, time.Time{})
	if got := ids(all); !slices.Equal(got, []int64{a.ID, b.ID, c.ID}) {
		t.Fatalf("upcoming = %v", got)
	}
	first := all[0]
	if first.Status != "SCHEDULED" || all[2].Status != "CANCELLED" || first.Seats != (booking.SeatTally{Available: 9, Held: 2, Blocked: 1}) ||
		!maps.Equal(first.Prices, pgtest.Prices) || first.Currency != "INR" || first.MovieTitle != "The Last Algorithm" {
		t.Fatalf("first show = %+v", first)
	}
	d2, _ := admin.ParseDate("from", "2027-03-02")
	if got := ids(list(d2, d2)); !slices.Equal(got, []int64{a.ID, b.ID}) {
		t.Fatalf("2 March = %v, want both shows of that day in the theatre's zone", got)
	}
	w.clock.Set(day(2, 11)) // it ends at 11:55
	if got := ids(list(time.Time{}, time.Time{})); !slices.Equal(got, []int64{a.ID, b.ID, c.ID}) {
		t.Fatalf("while the first plays = %v, want it still listed", got)
	}
	if got := list(time.Time{}, time.Time{})[0].Seats; got != (booking.SeatTally{Available: 11, Blocked: 1}) {
		t.Fatalf("after the hold lapsed: %+v, want its seats available", got)
	}
	w.clock.Set(day(3, 1)) // the 23:00 show ended at 00:55
	if got := ids(list(time.Time{}, time.Time{})); !slices.Equal(got, []int64{c.ID}) {
		t.Fatalf("on 3 March = %v, want only what has not ended", got)
	}
}

// A theatre admin sees and changes only their own theatres: another's
// screen, show and theatre do not exist for them.
func TestAuthorization(t *testing.T) {
	w := newWorld(t, "UTC")
	own := w.create(epoch.Add(24 * time.Hour))
	other := w.newTheatre("Elsewhere", "UTC")
	otherScreen := w.newScreen(other)
	otherShow, err := w.svc.CreateShow(t.Context(), w.platform, admin.NewShow{ScreenID: otherScreen, MovieID: w.movie,
		StartsAt: epoch.Add(24 * time.Hour), ShowTerms: w.terms()})
	if err != nil {
		t.Fatal(err)
	}
	ta := w.admin(auth.RoleTheatreAdmin, w.theatre)
	before := w.shows()
	day, _ := admin.ParseDate("from", "2027-03-02")

	checks := map[string]error{}
	_, checks["create on another's screen"] = w.svc.CreateShow(t.Context(), ta, admin.NewShow{ScreenID: otherScreen, MovieID: w.movie,
		StartsAt: epoch.Add(48 * time.Hour), ShowTerms: w.terms()})
	_, checks["schedule on another's screen"] = w.svc.ScheduleShows(t.Context(), ta, admin.ShowSeries{ScreenID: otherScreen, MovieID: w.movie,
		From: "2027-03-05", To: "2027-03-05", Times: []string{"10:00"}, ShowTerms: w.terms()})
	_, checks["list another's shows"] = w.svc.TheatreShows(t.Context(), ta, other, time.Time{}, time.Time{})
	_, checks["price another's show"] = w.svc.SetPrices(t.Context(), ta, otherShow.ID, map[string]int64{"STANDARD": 1, "PREMIUM": 1})
	_, checks["report another's sales"] = w.svc.Sales(t.Context(), ta, other, admin.Period{From: day, To: day})
	for name, err := range checks {
		if !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("%s: err = %v, want not found", name, err)
		}
	}
	if after := w.shows(); after != before {
		t.Fatalf("database changed: %s -> %s", before, after)
	}

	if _, err := w.svc.CreateShow(t.Context(), ta, w.newShow(epoch.Add(72*time.Hour))); err != nil {
		t.Fatalf("own screen: %v", err)
	}
	if _, err := w.svc.SetPrices(t.Context(), ta, own.ID, map[string]int64{"STANDARD": 1, "PREMIUM": 2}); err != nil {
		t.Fatalf("own show: %v", err)
	}
	if shows, err := w.svc.TheatreShows(t.Context(), ta, w.theatre, time.Time{}, time.Time{}); err != nil || len(shows) != 2 {
		t.Fatalf("own theatre: %d shows, %v", len(shows), err)
	}
}
