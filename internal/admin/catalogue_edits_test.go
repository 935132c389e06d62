package admin_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/pgtest"
)

func ptr[T any](v T) *T { return &v }

func TestUpdateMovie(t *testing.T) {
	w := newWorld(t, "Asia/Kolkata")
	ctx := t.Context()
	manager := w.admin(auth.RoleTheatreAdmin, w.theatre)
	audits := func() int { return w.count(`SELECT count(*) FROM audit_log WHERE action = 'movie.update'`) }
	ends := func(show int64) time.Time {
		return w.scalarTime(`SELECT ends_at FROM shows WHERE id = $1`, show)
	}

	// Two shows of the 100-minute movie on the screen, 30 minutes apart
	// once the first has ended; and one that has started by the clock.
	first := w.create(epoch.Add(24 * time.Hour))
	second := w.create(first.EndsAt.Add(30 * time.Minute))
	started := w.create(epoch.Add(time.Hour))
	w.clock.Set(started.StartsAt.Add(time.Minute))

	t.Run("a theatre admin may not edit the catalogue", func(t *testing.T) {
		_, err := w.svc.UpdateMovie(ctx, manager, w.movie, catalog.MoviePatch{Title: ptr("Mine")})
		if !errors.Is(err, admin.ErrPlatformOnly) {
			t.Fatalf("UpdateMovie = %v", err)
		}
	})
	t.Run("every field at fault is named at once and nothing changes", func(t *testing.T) {
		_, err := w.svc.UpdateMovie(ctx, w.platform, w.movie, catalog.MoviePatch{
			Title: ptr(" "), DurationMinutes: ptr(0), Rating: ptr(strings.Repeat("R", 21)), Synopsis: ptr("fine"),
		})
		var fields []string
		for _, p := range catalog.Problems(err) {
			fields = append(fields, p.Field)
		}
		if strings.Join(fields, ",") != "title,duration_minutes,rating" {
			t.Fatalf("UpdateMovie = %v: problems %v, want title, duration_minutes and rating", err, fields)
		}
		m, _ := w.store.Movie(ctx, w.movie)
		if m.Title != "The Last Algorithm" || m.DurationMinutes != 100 || audits() != 0 {
			t.Fatalf("a refused change left %+v, %d entries", m, audits())
		}
	})
	t.Run("an unknown movie", func(t *testing.T) {
		if _, err := w.svc.UpdateMovie(ctx, w.platform, 1<<40, catalog.MoviePatch{Title: ptr("X")}); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("UpdateMovie = %v", err)
		}
	})
	t.Run("the fields sent change, audited; the shows keep their times", func(t *testing.T) {
		up, err := w.svc.UpdateMovie(ctx, w.platform, w.movie, catalog.MoviePatch{
			Title: ptr("  The Lost Algorithm "), Genres: &[]string{"Drama", " ", "Sci-Fi"},
		})
		if err != nil || up.Movie.Title != "The Lost Algorithm" || strings.Join(up.Movie.Genres, ",") != "Drama,Sci-Fi" || len(up.ShowsMoved) != 0 {
			t.Fatalf("UpdateMovie = %+v, %v", up, err)
		}
		if m, _ := w.store.Movie(ctx, w.movie); m.Title != "The Lost Algorithm" || m.DurationMinutes != 100 {
			t.Fatalf("movie = %+v", m)
		}
		if !ends(first.ID).Equal(first.EndsAt) || audits() != 1 {
			t.Fatalf("a new title moved a show's end or wrote %d entries", audits())
		}
		got := w.scalarString(`SELECT format('%s -> %s', before->>'title', after->>'title') FROM audit_log WHERE action = 'movie.update'`)
		if got != "The Last Algorithm -> The Lost Algorithm" {
			t.Fatalf("audit = %s", got)
		}
	})
	t.Run("the same values again change nothing and are not audited", func(t *testing.T) {
		if _, err := w.svc.UpdateMovie(ctx, w.platform, w.movie, catalog.MoviePatch{Title: ptr("The Lost Algorithm"), DurationMinutes: ptr(100)}); err != nil {
			t.Fatal(err)
		}
		if audits() != 1 {
			t.Fatalf("%d entries", audits())
		}
	})
	t.Run("a longer running time moves the ends of the shows to come", func(t *testing.T) {
		up, err := w.svc.UpdateMovie(ctx, w.platform, w.movie, catalog.MoviePatch{DurationMinutes: ptr(120)})
		if err != nil || up.EndsMovedBy != 20*time.Minute || len(up.ShowsMoved) != 2 {
			t.Fatalf("UpdateMovie = %+v, %v; want the two shows to come moved by 20 minutes", up, err)
		}
		if !ends(first.ID).Equal(first.EndsAt.Add(20*time.Minute)) || !ends(second.ID).Equal(second.EndsAt.Add(20*time.Minute)) {
			t.Fatalf("ends = %s, %s", ends(first.ID), ends(second.ID))
		}
		if !ends(started.ID).Equal(started.EndsAt) {
			t.Fatalf("the show that started moved its end to %s", ends(started.ID))
		}
		got := w.scalarString(`SELECT format('%s %s', after->'shows_moved', after->'ends_moved_minutes') FROM audit_log
			WHERE action = 'movie.update' AND after ? 'shows_moved'`)
		if got != "["+itoa(first.ID)+", "+itoa(second.ID)+"] 20" {
			t.Fatalf("audit = %s", got)
		}
	})
	t.Run("a running time that would make a show run into the next is refused, naming both", func(t *testing.T) {
		before := audits()
		_, err := w.svc.UpdateMovie(ctx, w.platform, w.movie, catalog.MoviePatch{DurationMinutes: ptr(131), Rating: ptr("A")})
		var clash *catalog.RuntimeOverlapError
		if !errors.As(err, &clash) || len(clash.Overlaps) != 1 || clash.Overlaps[0].ShowID != first.ID ||
			clash.Overlaps[0].ConflictingShowID != second.ID || !errors.Is(err, catalog.ErrShowOverlap) {
			t.Fatalf("UpdateMovie = %v, want show %d named running into show %d", err, first.ID, second.ID)
		}
		if m, _ := w.store.Movie(ctx, w.movie); m.DurationMinutes != 120 || m.Rating != "" || audits() != before {
			t.Fatalf("a refused change left %+v", m)
		}
		if !ends(first.ID).Equal(first.EndsAt.Add(20 * time.Minute)) {
			t.Fatalf("a refused change moved an end to %s", ends(first.ID))
		}
		// Up to the next show's start is fine: the ranges do not overlap.
		if _, err := w.svc.UpdateMovie(ctx, w.platform, w.movie, catalog.MoviePatch{DurationMinutes: ptr(130)}); err != nil {
			t.Fatalf("a running time ending the show as the next starts: %v", err)
		}
	})
	t.Run("a shorter running time moves the ends earlier, and a new show takes it", func(t *testing.T) {
		up, err := w.svc.UpdateMovie(ctx, w.platform, w.movie, catalog.MoviePatch{DurationMinutes: ptr(90)})
		if err != nil || up.EndsMovedBy != -40*time.Minute {
			t.Fatalf("UpdateMovie = %+v, %v", up, err)
		}
		if !ends(first.ID).Equal(first.EndsAt.Add(-10 * time.Minute)) {
			t.Fatalf("end = %s, want 10 minutes before the first", ends(first.ID))
		}
		next := w.create(epoch.Add(72 * time.Hour))
		if got := next.EndsAt.Sub(next.StartsAt) - first.EndsAt.Sub(first.StartsAt); got != -10*time.Minute {
			t.Fatalf("a show scheduled after is %v longer than the first was", got)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func (w *world) scalarTime(sql string, args ...any) time.Time {
	w.t.Helper()
	var at time.Time
	if err := w.store.Pool().QueryRow(w.t.Context(), sql, args...).Scan(&at); err != nil {
		w.t.Fatal(err)
	}
	return at
}

func (w *world) scalarString(sql string, args ...any) string {
	w.t.Helper()
	var s string
	if err := w.store.Pool().QueryRow(w.t.Context(), sql, args...).Scan(&s); err != nil {
		w.t.Fatal(err)
	}
	return s
}

func TestRenameAndRetireScreen(t *testing.T) {
	w := newWorld(t, "Asia/Kolkata")
	ctx := t.Context()
	manager := w.admin(auth.RoleTheatreAdmin, w.theatre)
	stranger := w.admin(auth.RoleTheatreAdmin, w.newTheatre("Elsewhere", "Asia/Kolkata"))
	other := w.newScreen(w.theatre)
	audits := func() int { return w.count(`SELECT count(*) FROM audit_log WHERE action = 'screen.update'`) }
	show := w.create(epoch.Add(24 * time.Hour))

	t.Run("renamed, audited", func(t *testing.T) {
		up, err := w.svc.UpdateScreen(ctx, manager, w.screen, catalog.ScreenPatch{Name: ptr("  Audi 1 ")})
		if err != nil || up.After.Name != "Audi 1" || audits() != 1 {
			t.Fatalf("UpdateScreen = %+v, %v; %d entries", up, err, audits())
		}
	})
	t.Run("a bad or taken name is refused, nothing changed", func(t *testing.T) {
		otherName := w.scalarString(`SELECT name FROM screens WHERE id = $1`, other)
		for _, name := range []string{" ", strings.Repeat("x", 61), "Audi\u200b 2", otherName} {
			_, err := w.svc.UpdateScreen(ctx, manager, w.screen, catalog.ScreenPatch{Name: ptr(name)})
			wantField(t, err, "name")
		}
		if got := w.scalarString(`SELECT name FROM screens WHERE id = $1`, w.screen); got != "Audi 1" || audits() != 1 {
			t.Fatalf("name = %q, %d entries", got, audits())
		}
	})
	t.Run("another theatre's admin finds no such screen", func(t *testing.T) {
		_, err := w.svc.UpdateScreen(ctx, stranger, w.screen, catalog.ScreenPatch{Retired: ptr(true)})
		if !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("UpdateScreen = %v", err)
		}
	})
	t.Run("a screen with a show to come is not retired, the show named", func(t *testing.T) {
		_, err := w.svc.UpdateScreen(ctx, manager, w.screen, catalog.ScreenPatch{Name: ptr("Audi One"), Retired: ptr(true)})
		var busy *catalog.ScreenHasShowsError
		if !errors.As(err, &busy) || len(busy.Shows) != 1 || busy.Shows[0].ID != show.ID || busy.Shows[0].MovieTitle != "The Last Algorithm" {
			t.Fatalf("UpdateScreen = %v, want show %d named", err, show.ID)
		}
		if got := w.scalarString(`SELECT name || coalesce(retired_at::text, '') FROM screens WHERE id = $1`, w.screen); got != "Audi 1" || audits() != 1 {
			t.Fatalf("a refused change left %q", got)
		}
	})
	t.Run("once its shows are over it is retired: no new shows, out of the scheduling list, its history kept", func(t *testing.T) {
		w.clock.Set(show.EndsAt.Add(time.Minute))
		up, err := w.svc.UpdateScreen(ctx, manager, w.screen, catalog.ScreenPatch{Retired: ptr(true)})
		if err != nil || up.After.RetiredAt == nil || !up.After.RetiredAt.Equal(w.clock.Now()) || audits() != 2 {
			t.Fatalf("UpdateScreen = %+v, %v", up, err)
		}
		if _, err := w.svc.CreateShow(ctx, manager, w.newShow(epoch.Add(72*time.Hour))); !errors.Is(err, catalog.ErrScreenRetired) {
			t.Fatalf("CreateShow on a retired screen = %v", err)
		}
		facts, err := w.svc.Scheduling(ctx, manager, w.theatre)
		if err != nil || len(facts.Screens) != 1 || facts.Screens[0].ID != other {
			t.Fatalf("Scheduling = %+v, %v; want only the screen in use", facts.Screens, err)
		}
		d, err := w.svc.Theatre(ctx, manager, w.theatre)
		if err != nil || len(d.Screens) != 2 {
			t.Fatalf("Theatre = %+v, %v", d.Screens, err)
		}
		for _, sc := range d.Screens {
			if sc.Retired != (sc.ID == w.screen) {
				t.Fatalf("theatre's screens = %+v", d.Screens)
			}
		}
		past, err := w.svc.TheatreShows(ctx, manager, w.theatre, epoch, epoch.Add(7*24*time.Hour))
		if err != nil || len(past) != 1 || past[0].ID != show.ID {
			t.Fatalf("the past show of the retired screen: %+v, %v", past, err)
		}
		if got := w.scalarString(`SELECT format('%s %s', before->'retired', after->'retired') FROM audit_log WHERE action = 'screen.update' ORDER BY id DESC LIMIT 1`); got != "false true" {
			t.Fatalf("audit = %s", got)
		}
		// Retiring it again changes nothing.
		if _, err := w.svc.UpdateScreen(ctx, manager, w.screen, catalog.ScreenPatch{Retired: ptr(true)}); err != nil || audits() != 2 {
			t.Fatalf("retire again: %v, %d entries", err, audits())
		}
	})
	t.Run("put back in use, it takes shows again", func(t *testing.T) {
		if _, err := w.svc.UpdateScreen(ctx, manager, w.screen, catalog.ScreenPatch{Retired: ptr(false)}); err != nil {
			t.Fatal(err)
		}
		w.create(epoch.Add(72 * time.Hour))
	})
}

func TestAddACategoryToAScreenOnSale(t *testing.T) {
	w := newWorld(t, "Asia/Kolkata")
	ctx := t.Context()
	manager := w.admin(auth.RoleTheatreAdmin, w.theatre)
	first := w.create(epoch.Add(24 * time.Hour))
	second := w.create(epoch.Add(48 * time.Hour))
	// The 3x4 layout with its front row made VIP, a category no show has.
	layout := pgtestGrid()
	for i := range layout[:4] {
		layout[i].Category = "VIP"
	}
	before := w.shows()
	unchanged := func(t *testing.T) {
		t.Helper()
		if got := w.shows(); got != before {
			t.Fatalf("a refused layout changed %s to %s", before, got)
		}
		if n := w.count(`SELECT count(*) FROM show_seats WHERE category = 'VIP'`); n != 0 {
			t.Fatalf("%d seats are VIP", n)
		}
	}

	t.Run("what needs a price", func(t *testing.T) {
		needs, err := w.svc.PriceNeeds(ctx, manager, w.screen, layout)
		if err != nil || len(needs) != 2 || needs[0].ID != first.ID || strings.Join(needs[0].Categories, ",") != "VIP" || needs[0].Currency != "INR" {
			t.Fatalf("PriceNeeds = %+v, %v", needs, err)
		}
	})
	t.Run("without prices: refused, naming the category and the shows", func(t *testing.T) {
		_, err := w.svc.ReplaceLayout(ctx, manager, w.screen, layout, catalog.IdealChange{})
		var missing *catalog.MissingPricesError
		if !errors.As(err, &missing) || strings.Join(missing.Categories, ",") != "VIP" || len(missing.Shows) != 2 {
			t.Fatalf("ReplaceLayout = %v", err)
		}
		unchanged(t)
	})
	t.Run("a price for one show only: refused, naming the other", func(t *testing.T) {
		_, err := w.svc.ReplaceLayoutPriced(ctx, manager, w.screen, layout, catalog.IdealChange{},
			catalog.NewPrices{Shows: map[int64]map[string]int64{first.ID: {"VIP": 60000}}})
		var missing *catalog.MissingPricesError
		if !errors.As(err, &missing) || len(missing.Shows) != 1 || missing.Shows[0] != second.ID {
			t.Fatalf("ReplaceLayoutPriced = %v", err)
		}
		unchanged(t)
	})
	t.Run("bad prices: every one named, nothing changed", func(t *testing.T) {
		_, err := w.svc.ReplaceLayoutPriced(ctx, manager, w.screen, layout, catalog.IdealChange{}, catalog.NewPrices{
			Default: map[string]int64{"VIP": -1},
			Shows:   map[int64]map[string]int64{first.ID: {"VIP": 1 << 40}, second.ID: {"vip": 5}},
		})
		var fields []string
		for _, p := range catalog.Problems(err) {
			fields = append(fields, p.Field)
		}
		want := fmt.Sprintf("prices.VIP,show_prices.%d.VIP,show_prices.%d.vip", first.ID, second.ID)
		if strings.Join(fields, ",") != want {
			t.Fatalf("ReplaceLayoutPriced = %v: problems %v, want %s", err, fields, want)
		}
		unchanged(t)
	})
	t.Run("prices for what the layout or the screen lacks", func(t *testing.T) {
		_, err := w.svc.ReplaceLayoutPriced(ctx, manager, w.screen, layout, catalog.IdealChange{}, catalog.NewPrices{
			Default: map[string]int64{"VIP": 50000, "BOX": 90000},
			Shows:   map[int64]map[string]int64{1 << 40: {"VIP": 1}},
		})
		var fields []string
		for _, p := range catalog.Problems(err) {
			fields = append(fields, p.Field)
		}
		if strings.Join(fields, ",") != "prices,show_prices" {
			t.Fatalf("ReplaceLayoutPriced = %v: problems %v", err, fields)
		}
		unchanged(t)
	})
	t.Run("one price for all, another for one show: the layout and the prices in one step", func(t *testing.T) {
		ch, err := w.svc.ReplaceLayoutPriced(ctx, manager, w.screen, layout, catalog.IdealChange{}, catalog.NewPrices{
			Default: map[string]int64{"VIP": 50000},
			Shows:   map[int64]map[string]int64{second.ID: {"VIP": 65000}},
		})
		if err != nil || len(ch.Priced) != 2 || len(ch.Recategorized) != 4 {
			t.Fatalf("ReplaceLayoutPriced = %+v, %v", ch, err)
		}
		if got := w.prices(first.ID)["VIP"]; got != 50000 {
			t.Fatalf("the first show's VIP price is %d", got)
		}
		if got := w.prices(second.ID)["VIP"]; got != 65000 {
			t.Fatalf("the second show's VIP price is %d", got)
		}
		if n := w.count(`SELECT count(*) FROM show_seats WHERE category = 'VIP'`); n != 8 {
			t.Fatalf("%d seats are VIP in the two shows, want 8", n)
		}
		got := w.scalarString(`SELECT after->>'prices_added' FROM audit_log WHERE action = 'screen.replace_layout'`)
		if !strings.Contains(got, `"price_minor": 65000`) || !strings.Contains(got, `"category": "VIP"`) {
			t.Fatalf("audit = %s", got)
		}
		// The held seats of a VIP seat cost its price.
		h := w.hold(second.ID, "A1")
		if h.AmountMinor != 65000 {
			t.Fatalf("a VIP seat of the second show costs %d", h.AmountMinor)
		}
	})
	t.Run("saved again, its prices fill nothing and change nothing", func(t *testing.T) {
		ch, err := w.svc.ReplaceLayoutPriced(ctx, manager, w.screen, layout, catalog.IdealChange{},
			catalog.NewPrices{Default: map[string]int64{"VIP": 1}})
		if err != nil || len(ch.Priced) != 0 || w.prices(first.ID)["VIP"] != 50000 {
			t.Fatalf("ReplaceLayoutPriced again = %+v, %v", ch, err)
		}
	})
}

// pgtestGrid is the world screen's layout (pgtest.Grid(3, 4)).
func pgtestGrid() []catalog.SeatSpec { return pgtest.Grid(3, 4) }
