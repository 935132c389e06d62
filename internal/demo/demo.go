// Package demo fills an empty database with a small, believable catalogue:
// two cities, three theatres, screens of different shapes, a handful of
// movies and a week of shows, so `marquee serve --demo` has something to sell,
// and two admins to run it (admins.go).
package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// Seat categories of the demo screens.
const (
	Standard   = "STANDARD"
	Premium    = "PREMIUM"
	Recliner   = "RECLINER"
	Accessible = "ACCESSIBLE"
)

// demoCurrency is what the demo's theatres, all in India, price shows in.
const demoCurrency = "INR"

// Prices are the demo prices per seat category, in INR minor units (paise).
var Prices = map[string]int64{
	Standard:   25000,
	Premium:    45000,
	Recliner:   80000,
	Accessible: 25000,
}

// Schedule of every screen, in the theatre's time zone.
const (
	// days is how far ahead shows are scheduled.
	days = 7
	// gap is the least time between the end of a show and the next start on
	// the same screen (cleaning, seating).
	gap = 30 * time.Minute
	// firstShow and lastStart bound the start times of a day, as local wall
	// clock minutes after midnight.
	firstShow = 10 * 60
	lastStart = 22*60 + 30
)

// The demo's movies. Titles and synopses are made up.
var movies = []catalog.Movie{
	{Title: "The Monsoon Cartographer", DurationMinutes: 142, Rating: "UA", Language: "Malayalam", Genres: []string{"Adventure", "Mystery"},
		Synopsis: "A surveyor racing the rains across the Western Ghats finds a village that appears on no map, and a reason it wants to stay that way."},
	{Title: "Last Local to Churchgate", DurationMinutes: 128, Rating: "UA", Language: "Hindi", Genres: []string{"Thriller", "Mystery"},
		Synopsis: "Seven strangers on the final train of the night have until the terminus to solve a theft none of them admits to."},
	{Title: "Grandmother's Chess Club", DurationMinutes: 104, Rating: "U", Language: "Tamil", Genres: []string{"Comedy", "Drama"},
		Synopsis: "A retired maths teacher coaches a building full of misfits toward the state championship, one opening at a time."},
	{Title: "Signal Lost at Kalsubai", DurationMinutes: 118, Rating: "A", Language: "Marathi", Genres: []string{"Thriller"},
		Synopsis: "A night trek turns into a manhunt when the only phone with a signal records something it should not have."},
	{Title: "Orbit of Small Things", DurationMinutes: 156, Rating: "UA", Language: "English", Genres: []string{"Science fiction", "Drama"},
		Synopsis: "An engineer's daughter decodes a message hidden in the telemetry of a satellite everyone else forgot."},
	{Title: "Paper Moons Over Hampi", DurationMinutes: 96, Rating: "U", Language: "Kannada", Genres: []string{"Comedy", "Family"},
		Synopsis: "Two rival tour guides must share one last group of tourists, and one very determined goat."},
}

// screenPlan is a screen and what it shows in: its shows take the formats
// in turn, and the dubs in turn (a dub of "" or of the movie's own
// language plays the original).
type screenPlan struct {
	name    string
	seats   []catalog.SeatSpec
	formats []string // nil: 2D only
	dubs    []string
}

type theatrePlan struct {
	city     string // slug
	name     string
	address  string
	policy   *booking.RefundPolicy // nil: the default policy
	screens  []screenPlan
	timeZone string
}

type cityPlan struct{ name, slug string }

var cities = []cityPlan{{"Bengaluru", "bengaluru"}, {"Mumbai", "mumbai"}}

// theatres is the demo's venues. The first has its own refund policy.
func theatres() []theatrePlan {
	return []theatrePlan{
		{
			city: "bengaluru", name: "Marquee Indiranagar", address: "12 100 Feet Road, Indiranagar, Bengaluru 560038",
			timeZone: "Asia/Kolkata",
			policy: &booking.RefundPolicy{Tiers: []booking.RefundTier{
				{Before: 48 * time.Hour, Percent: 100},
				{Before: 6 * time.Hour, Percent: 75},
			}},
			screens: []screenPlan{
				{name: "Audi 1", seats: Hall(), formats: []string{"2D", "3D"}},
				{name: "Studio", seats: SmallRoom()},
			},
		},
		{
			city: "bengaluru", name: "Lakeside Cinemas Whitefield", address: "Lakeside Mall, ITPL Main Road, Whitefield, Bengaluru 560066",
			timeZone: "Asia/Kolkata",
			screens: []screenPlan{
				{name: "Grand", seats: LargeHall(), dubs: []string{"", "Hindi"}},
				{name: "Mega", seats: MegaHall(), formats: []string{"IMAX 2D", "IMAX 2D", "IMAX 3D"}},
			},
		},
		{
			city: "mumbai", name: "Seaview Talkies Bandra", address: "4 Carter Road, Bandra West, Mumbai 400050",
			timeZone: "Asia/Kolkata",
			screens: []screenPlan{
				{name: "Screen 1", seats: Hall(), dubs: []string{"", "Hindi"}},
				{name: "Screen 2", seats: LargeHall(), formats: []string{"2D", "4DX"}},
			},
		},
	}
}

// Load creates the demo catalogue through the store, with shows over the
// seven days after now. It expects a database without the demo cities: loading
// twice fails on the cities' unique slugs. Each store call is its own
// transaction, so a failed Load leaves part of the catalogue behind.
func Load(ctx context.Context, s *postgres.Store, now time.Time) error {
	cityIDs := map[string]int64{}
	for _, c := range cities {
		id, err := s.CreateCity(ctx, c.name, c.slug)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		cityIDs[c.slug] = id
	}
	movieIDs := make([]int64, len(movies))
	for i, m := range movies {
		id, err := s.CreateMovie(ctx, m)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		movieIDs[i] = id
		poster, err := posterOf(i, m)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if _, err := s.SetPoster(ctx, id, poster); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	// The catalogue first, then every screen's week of shows in parallel:
	// putting a show on sale writes a row per seat, and one screen after
	// another would take seconds of start-up.
	var plans []screenShows
	for _, tp := range theatres() {
		loc, err := time.LoadLocation(tp.timeZone)
		if err != nil {
			return fmt.Errorf("demo: theatre %q: %w", tp.name, err)
		}
		theatreID, err := s.CreateTheatre(ctx, catalog.Theatre{
			CityID: cityIDs[tp.city], Name: tp.name, Address: tp.address, TimeZone: tp.timeZone, Currency: demoCurrency,
		}, tp.policy)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		// As a theatre an admin adds: no single empty seats left.
		on := true
		if err := s.SetTheatreSettings(ctx, theatreID, catalog.TheatreSettingsPatch{OrphanRule: &on}); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		for _, sp := range tp.screens {
			screenID, err := s.CreateScreen(ctx, theatreID, sp.name, sp.seats)
			if err != nil {
				return fmt.Errorf("demo: %w", err)
			}
			plans = append(plans, screenShows{
				name:     tp.name + ", " + sp.name,
				screenID: screenID,
				prices:   pricesFor(sp.seats),
				formats:  sp.formats,
				dubs:     sp.dubs,
				slots:    schedule(now, loc, len(plans)),
				loc:      loc,
			})
		}
	}
	if err := loadAdmins(ctx, s); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Go(func() {
			if errs[i] = p.create(ctx, s, movieIDs); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	// The first failure cancelled the others: report it, not their
	// cancellations.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return errors.Join(errs...)
}

// screenShows is the week of shows planned for one screen.
type screenShows struct {
	name     string
	screenID int64
	prices   map[string]int64
	formats  []string
	dubs     []string
	slots    []slot
	loc      *time.Location
}

func (p screenShows) create(ctx context.Context, s *postgres.Store, movieIDs []int64) error {
	for i, sl := range p.slots {
		m := movies[sl.movie]
		sh := catalog.Show{
			MovieID: movieIDs[sl.movie], ScreenID: p.screenID,
			StartsAt: sl.startsAt, EndsAt: sl.startsAt.Add(time.Duration(m.DurationMinutes) * time.Minute),
			Currency: demoCurrency, Prices: p.prices,
		}
		if len(p.formats) > 0 {
			sh.Format = p.formats[i%len(p.formats)]
		}
		if len(p.dubs) > 0 {
			sh.Language = p.dubs[i%len(p.dubs)]
		}
		_, err := s.CreateShow(ctx, sh)
		if err != nil {
			return fmt.Errorf("demo: %s at %s: %w", p.name, sl.startsAt.In(p.loc).Format(time.DateTime), err)
		}
	}
	return nil
}

// pricesFor returns the demo price of each category the seats use, so a show
// lists no price for a seat it does not have.
func pricesFor(seats []catalog.SeatSpec) map[string]int64 {
	p := map[string]int64{}
	for _, st := range seats {
		p[st.Category] = Prices[st.Category]
	}
	return p
}

// slot is one planned show: an index into the demo movies and a start time.
type slot struct {
	movie    int
	startsAt time.Time
}

// schedule plans the shows of the screen numbered screenNo for the days after
// now: every start strictly after now and before now+days, on a quarter hour
// of loc's wall clock between 10:00 and 22:30, at least gap after the
// previous show on the screen ends. Screens open at staggered times and
// rotate the movies from different places, so the screens of one theatre do
// not all start the same film at the same minute.
func schedule(now time.Time, loc *time.Location, screenNo int) []slot {
	end := now.Add(days * 24 * time.Hour)
	movie := screenNo % len(movies)
	var slots []slot
	// cursor is the earliest next start. A show starting this very minute
	// is no use to anyone.
	cursor := now.Add(time.Minute)
	local := now.In(loc)
	for day := 0; day <= days; day++ {
		date := time.Date(local.Year(), local.Month(), local.Day()+day, 0, 0, 0, 0, loc)
		opening := wallClock(date, firstShow+15*(screenNo%4), loc)
		closing := wallClock(date, lastStart, loc)
		start := quarterAfter(later(opening, cursor), loc)
		for !start.After(closing) && start.Before(end) {
			slots = append(slots, slot{movie: movie, startsAt: start})
			runtime := time.Duration(movies[movie].DurationMinutes) * time.Minute
			cursor = start.Add(runtime + gap)
			start = quarterAfter(cursor, loc)
			movie = (movie + 1) % len(movies)
		}
	}
	return slots
}

// wallClock returns minutes after midnight of date's day in loc.
func wallClock(date time.Time, minutes int, loc *time.Location) time.Time {
	return time.Date(date.Year(), date.Month(), date.Day(), minutes/60, minutes%60, 0, 0, loc)
}

// quarterAfter returns the first quarter hour of loc's wall clock at or after t.
func quarterAfter(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	q := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute()/15*15, 0, 0, loc)
	for q.Before(t) {
		q = q.Add(15 * time.Minute)
	}
	return q
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Hall is a 10-row hall: rows A-I have 16 seats in two blocks of eight
// either side of a centre aisle (grid column 8 is empty), A-G STANDARD and
// H-I PREMIUM; the last row, J, has eight RECLINERs, each two grid columns wide.
func Hall() []catalog.SeatSpec {
	var seats []catalog.SeatSpec
	sides := append(span(0, 7), span(9, 16)...)
	for r := 0; r < 9; r++ {
		category := Standard
		if r >= 7 {
			category = Premium
		}
		seats = append(seats, row(r, category, sides)...)
	}
	recliners := []int{0, 2, 4, 6, 9, 11, 13, 15}
	return append(seats, row(9, Recliner, recliners)...)
}

// SmallRoom is a 6-row room of 10 seats a row: three seats, a side aisle
// (grid column 3 is empty), seven seats. The back row, by the door, has two
// ACCESSIBLE wheelchair spaces (F1, F2) and a STANDARD transfer seat on the
// aisle (F3) flagged accessible.
func SmallRoom() []catalog.SeatSpec {
	var seats []catalog.SeatSpec
	cols := append(span(0, 2), span(4, 10)...)
	for r := 0; r < 6; r++ {
		seats = append(seats, row(r, Standard, cols)...)
	}
	for i := range seats {
		st := &seats[i]
		if st.Row != "F" {
			continue
		}
		switch st.Number {
		case 1, 2:
			st.Category, st.Accessible = Accessible, true
		case 3:
			st.Accessible = true
		}
	}
	return seats
}

// LargeHall is a 15-row hall (A-O) of 24 seats a row in blocks of 6, 12 and
// 6 with an aisle after each of the first two (grid columns 6 and 19 are
// empty). The centre block of rows H-O is PREMIUM, the rest STANDARD.
func LargeHall() []catalog.SeatSpec {
	var seats []catalog.SeatSpec
	left, centre, right := span(0, 5), span(7, 18), span(20, 25)
	for r := 0; r < 15; r++ {
		centreCategory := Standard
		if r >= 7 {
			centreCategory = Premium
		}
		rs := row(r, Standard, append(append(append([]int{}, left...), centre...), right...))
		for i := range rs {
			if rs[i].GridCol >= 7 && rs[i].GridCol <= 18 {
				rs[i].Category = centreCategory
			}
		}
		seats = append(seats, rs...)
	}
	return seats
}

// MegaHall is a 1,000-seat hall of 25 rows (A-Y) of 40 seats in blocks of
// 10, 20 and 10 with an aisle after each of the first two (grid columns 10
// and 31 are empty): the biggest layout the seat map must stay fast on.
// Rows A-E are STANDARD, the centre block of rows F-T PREMIUM, rows U-Y
// RECLINER; the two outer seats of row A are accessible.
func MegaHall() []catalog.SeatSpec {
	var seats []catalog.SeatSpec
	cols := append(append(span(0, 9), span(11, 30)...), span(32, 41)...)
	for r := 0; r < 25; r++ {
		rs := row(r, Standard, cols)
		for i := range rs {
			centre := rs[i].GridCol >= 11 && rs[i].GridCol <= 30
			switch {
			case r >= 20:
				rs[i].Category = Recliner
			case r >= 5 && centre:
				rs[i].Category = Premium
			}
		}
		if r == 0 {
			rs[0].Category, rs[0].Accessible = Accessible, true
			rs[len(rs)-1].Category, rs[len(rs)-1].Accessible = Accessible, true
		}
		seats = append(seats, rs...)
	}
	return seats
}

// row returns the seats of grid row r, one per grid column in cols (left to
// right), labelled by row letter and a number counting only real seats.
func row(r int, category string, cols []int) []catalog.SeatSpec {
	label := string(rune('A' + r))
	seats := make([]catalog.SeatSpec, len(cols))
	for i, c := range cols {
		seats[i] = catalog.SeatSpec{
			ID: fmt.Sprintf("%s%d", label, i+1), Row: label, Number: i + 1,
			Category: category, GridRow: r, GridCol: c,
		}
	}
	return seats
}

func span(from, to int) []int {
	s := make([]int, 0, to-from+1)
	for c := from; c <= to; c++ {
		s = append(s, c)
	}
	return s
}
