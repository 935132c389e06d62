package admin_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/ticket"
)

// doorWorld is a theatre with two shows, staff in each role and a way to
// book seats.
type doorWorld struct {
	t      *testing.T
	s      *postgres.Store
	svc    *admin.Service
	keys   *ticket.Keys
	v      pgtest.Venue
	show   int64
	other  int64
	staff  map[auth.StaffRole]admin.Actor
	stafer admin.Actor // staff of another theatre
}

func newDoorWorld(t *testing.T) *doorWorld {
	t.Helper()
	t.Parallel()
	s := pgtest.NewStore(t, 24)
	t.Cleanup(func() { pgtest.CheckInvariants(t, s) })
	keys, err := ticket.NewKeys([]byte("a door test key, 32 bytes long!!"))
	if err != nil {
		t.Fatal(err)
	}
	w := &doorWorld{t: t, s: s, svc: &admin.Service{Store: s, Tickets: keys}, keys: keys, v: pgtest.NewVenue(t, s),
		staff: map[auth.StaffRole]admin.Actor{}}
	w.show = pgtest.NewShow(t, s, w.v, 4, 5, time.Now().Add(48*time.Hour))
	w.other = pgtest.NewShow(t, s, w.v, 2, 2, time.Now().Add(72*time.Hour))
	for _, r := range auth.StaffRoles {
		w.staff[r] = w.member(w.v.TheatreID, r)
	}
	w.stafer = w.member(pgtest.NewVenue(t, s).TheatreID, auth.StaffManager)
	return w
}

func (w *doorWorld) member(theatre int64, role auth.StaffRole) admin.Actor {
	id := pgtest.User(w.t, w.s)
	pgtest.Exec(w.t, w.s.Pool(), `UPDATE users SET role = 'theatre_admin' WHERE id = $1`, id)
	pgtest.Exec(w.t, w.s.Pool(), `INSERT INTO theatre_staff (theatre_id, user_id, role) VALUES ($1, $2, $3)`, theatre, id, role)
	return admin.Actor{UserID: id, Role: auth.RoleTheatreAdmin}
}

// book confirms a booking of seats of show for a new moviegoer.
func (w *doorWorld) book(show int64, seats ...string) booking.Booking {
	w.t.Helper()
	user := pgtest.User(w.t, w.s)
	res, err := w.s.HoldSeats(ctx, booking.HoldRequest{UserID: user, ShowID: show, Seats: seats, TTL: time.Minute,
		Key: fmt.Sprint("door-", user)}, 10)
	if err != nil {
		w.t.Fatal(err)
	}
	c, err := w.s.ConfirmPayment(ctx, booking.Payment{ID: fmt.Sprintf("door-pay-%s", user), HoldRef: res.Hold.ID,
		AmountMinor: res.Hold.AmountMinor, Currency: res.Hold.Currency})
	if err != nil || c.BookingID == "" {
		w.t.Fatalf("confirm: %+v, %v", c, err)
	}
	b, err := w.s.Booking(ctx, user, c.BookingID)
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

func TestCheckIn(t *testing.T) {
	w := newDoorWorld(t)
	usher := w.staff[auth.StaffUsher]
	b := w.book(w.show, "A1", "A2")
	code := w.keys.Code(b.Code, w.show)

	t.Run("admit, then admit again: who let them in, when, at which door", func(t *testing.T) {
		a, err := w.svc.CheckIn(ctx, usher, w.show, code, "North door")
		if err != nil || a.Result != booking.Admitted || a.BookingID != b.ID || !slices.Equal(a.Seats, []string{"A1", "A2"}) || a.Name == "" {
			t.Fatalf("first scan = %+v, %v", a, err)
		}
		again, err := w.svc.CheckIn(ctx, w.staff[auth.StaffBoxOffice], w.show, code, "South")
		if err != nil || again.Result != booking.AlreadyAdmitted || !again.AdmittedAt.Equal(a.AdmittedAt) ||
			again.Gate != "North door" || again.By == "" {
			t.Fatalf("second scan = %+v, %v", again, err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM checkin_scans WHERE booking_id = $1`, b.ID); n != 2 {
			t.Fatalf("%d scans recorded, want 2", n)
		}
	})
	t.Run("a typed short code, with spaces and dashes, admits too", func(t *testing.T) {
		typed := w.book(w.show, "B1")
		c := typed.Code
		a, err := w.svc.CheckIn(ctx, usher, w.show, " "+c[:4]+"-"+c[4:8]+" "+c[8:], "")
		if err != nil || a.Result != booking.Admitted || a.BookingID != typed.ID {
			t.Fatalf("typed = %+v, %v", a, err)
		}
	})
	t.Run("another show's ticket says which show", func(t *testing.T) {
		o := w.book(w.other, "A1")
		a, err := w.svc.CheckIn(ctx, usher, w.show, w.keys.Code(o.Code, w.other), "")
		if err != nil || a.Result != booking.WrongShow || a.OtherShow.ID != w.other || a.OtherShow.Movie == "" {
			t.Fatalf("wrong show = %+v, %v", a, err)
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM checkins WHERE booking_id = $1`, o.ID); n != 0 {
			t.Fatal("another show's ticket was admitted")
		}
	})
	t.Run("a cancelled ticket is refused", func(t *testing.T) {
		c := w.book(w.show, "C1")
		if _, err := w.s.CancelBooking(ctx, c.UserID, c.ID); err != nil {
			t.Fatal(err)
		}
		a, err := w.svc.CheckIn(ctx, usher, w.show, w.keys.Code(c.Code, w.show), "")
		if err != nil || a.Result != booking.TicketCancelled {
			t.Fatalf("cancelled = %+v, %v", a, err)
		}
	})
	t.Run("forged and unknown codes are unknown tickets", func(t *testing.T) {
		f := w.book(w.show, "D1")
		stranger, _ := ticket.NewKeys([]byte("someone else's key, 32 bytes !!!"))
		for _, forged := range []string{
			stranger.Code(f.Code, w.show),                       // signed by another key
			w.keys.Code(f.Code, w.show)[:60] + "x",              // cut
			w.keys.Code("ZZZZZZZZZZZZ", w.show),                 // genuine signature, no such booking
			"NOTATICKET", "", string(make([]byte, 5000)) + "A1", // junk
		} {
			a, err := w.svc.CheckIn(ctx, usher, w.show, forged, "")
			if err != nil || a.Result != booking.UnknownTicket {
				t.Errorf("CheckIn(%.30q) = %+v, %v", forged, a, err)
			}
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM checkins WHERE booking_id = $1`, f.ID); n != 0 {
			t.Fatal("a forged code admitted the booking it names")
		}
	})
	t.Run("who may check in", func(t *testing.T) {
		k := w.book(w.show, "D2")
		code := w.keys.Code(k.Code, w.show)
		if _, err := w.svc.CheckIn(ctx, w.stafer, w.show, code, ""); !errors.Is(err, booking.ErrNotFound) {
			t.Errorf("another theatre's manager: %v", err)
		}
		if _, err := w.svc.CheckIn(ctx, usher, w.show, code, string(make([]rune, 41))); err == nil {
			t.Error("a gate of 41 characters was taken")
		}
		if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM checkin_scans WHERE booking_id = $1`, k.ID); n != 0 {
			t.Fatalf("refused scans were recorded: %d", n)
		}
		a, err := w.svc.CheckIn(ctx, w.staff[auth.StaffManager], w.show, code, "")
		if err != nil || a.Result != booking.Admitted {
			t.Fatalf("manager: %+v, %v", a, err)
		}
	})
}

// Many ushers scan one ticket at the same instant: it is admitted once,
// and every other scan says by whom.
func TestCheckInRace(t *testing.T) {
	w := newDoorWorld(t)
	b := w.book(w.show, "A1")
	code := w.keys.Code(b.Code, w.show)
	ushers := make([]admin.Actor, 16)
	for i := range ushers {
		ushers[i] = w.member(w.v.TheatreID, auth.StaffUsher)
	}
	answers := make([]booking.Admission, len(ushers))
	errs := make([]error, len(ushers))
	pgtest.Release(len(ushers), func(i int) {
		answers[i], errs[i] = w.svc.CheckIn(ctx, ushers[i], w.show, code, fmt.Sprint("door ", i))
	})
	admitted := 0
	for i, a := range answers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		switch a.Result {
		case booking.Admitted:
			admitted++
		case booking.AlreadyAdmitted:
		default:
			t.Fatalf("scan %d: %+v", i, a)
		}
	}
	if admitted != 1 {
		t.Fatalf("%d scans admitted the ticket, want 1", admitted)
	}
	first := pgtest.Scalar[string](t, w.s.Pool(), `SELECT gate FROM checkins WHERE booking_id = $1`, b.ID)
	for _, a := range answers {
		if a.Gate != first {
			t.Fatalf("a scan says %q let them in; the database says %q", a.Gate, first)
		}
	}
	if n := pgtest.Scalar[int](t, w.s.Pool(), `SELECT count(*) FROM checkin_scans WHERE booking_id = $1`, b.ID); n != len(ushers) {
		t.Fatalf("%d scans recorded, want %d", n, len(ushers))
	}
}

// Two phones lose the network and both admit the same ticket; when they
// sync, the first admission stands and the second is reported.
func TestOfflineScansSync(t *testing.T) {
	w := newDoorWorld(t)
	b := w.book(w.show, "A1")
	lone := w.book(w.show, "A2")
	code := w.keys.Code(b.Code, w.show)
	north, south := w.member(w.v.TheatreID, auth.StaffUsher), w.member(w.v.TheatreID, auth.StaffUsher)
	at := time.Now().Add(-10 * time.Minute).UTC().Truncate(time.Microsecond)

	// South syncs first, but north scanned first: the earlier scan wins
	// only among one phone's scans; across phones the first synced stands.
	got, err := w.svc.SyncCheckIns(ctx, south, w.show, []admin.OfflineScan{
		{Code: w.keys.Code(lone.Code, w.show), Gate: "South", At: at.Add(2 * time.Minute), Answer: booking.Admitted},
		{Code: code, Gate: "South", At: at.Add(time.Minute), Answer: booking.Admitted},
	})
	if err != nil || len(got) != 2 || got[0].Result != booking.Admitted || got[0].BookingID != b.ID || !got[0].AdmittedAt.Equal(at.Add(time.Minute)) {
		t.Fatalf("south's sync = %+v, %v", got, err)
	}
	got, err = w.svc.SyncCheckIns(ctx, north, w.show, []admin.OfflineScan{
		{Code: code, Gate: "North", At: at, Answer: booking.Admitted},
		{Code: "FORGED", Gate: "North", At: at, Answer: booking.UnknownTicket},
	})
	if err != nil || len(got) != 2 || got[0].Result != booking.AlreadyAdmitted || got[0].Gate != "South" || got[1].Result != booking.UnknownTicket {
		t.Fatalf("north's sync = %+v, %v", got, err)
	}
	d, err := w.svc.Door(ctx, north, w.show)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Doubles) != 1 || d.Doubles[0].BookingID != b.ID || d.Doubles[0].FirstGate != "South" || d.Doubles[0].AgainGate != "North" {
		t.Fatalf("doubles = %+v", d.Doubles)
	}
	if d.Admitted != 2 || len(d.Tickets) != 2 || len(d.Keys) != 1 {
		t.Fatalf("door = %d admitted, %d tickets, %d keys", d.Admitted, len(d.Tickets), len(d.Keys))
	}
	// A phone whose clock runs ahead cannot admit in the future.
	late := w.book(w.show, "B1")
	got, err = w.svc.SyncCheckIns(ctx, north, w.show, []admin.OfflineScan{
		{Code: w.keys.Code(late.Code, w.show), At: time.Now().Add(time.Hour), Answer: booking.Admitted}})
	if err != nil || got[0].Result != booking.Admitted || got[0].AdmittedAt.After(time.Now().Add(time.Minute)) {
		t.Fatalf("a scan from the future = %+v, %v", got, err)
	}
}

func TestStaffRoles(t *testing.T) {
	w := newDoorWorld(t)
	manager, boxOffice, usher := w.staff[auth.StaffManager], w.staff[auth.StaffBoxOffice], w.staff[auth.StaffUsher]

	t.Run("what each role may do at its theatre", func(t *testing.T) {
		for _, tc := range []struct {
			who  admin.Actor
			name string
			want map[string]bool // use case -> allowed
		}{
			{manager, "manager", map[string]bool{"occupancy": true, "shows": true, "door": true, "block": true, "staff": true, "sales": true}},
			{boxOffice, "box office", map[string]bool{"occupancy": true, "shows": true, "door": true}},
			{usher, "usher", map[string]bool{"occupancy": true, "shows": true, "door": true}},
		} {
			calls := map[string]error{}
			_, calls["occupancy"] = w.svc.ShowOccupancy(ctx, tc.who, w.show)
			_, calls["shows"] = w.svc.TheatreShows(ctx, tc.who, w.v.TheatreID, time.Time{}, time.Time{})
			_, calls["door"] = w.svc.Door(ctx, tc.who, w.show)
			_, calls["block"] = w.svc.BlockSeats(ctx, tc.who, w.show, []string{"D5"})
			_, calls["staff"] = w.svc.Staff(ctx, tc.who, w.v.TheatreID)
			_, calls["sales"] = w.svc.Sales(ctx, tc.who, w.v.TheatreID, admin.Period{From: time.Now().Add(-24 * time.Hour), To: time.Now()})
			for name, err := range calls {
				if tc.want[name] && err != nil {
					t.Errorf("%s: %s refused: %v", tc.name, name, err)
				}
				if !tc.want[name] && !errors.Is(err, admin.ErrRole) {
					t.Errorf("%s: %s = %v, want ErrRole", tc.name, name, err)
				}
			}
			if _, err := w.svc.ShowOccupancy(ctx, w.stafer, w.show); !errors.Is(err, booking.ErrNotFound) {
				t.Errorf("another theatre's staff: %v", err)
			}
		}
	})
	t.Run("a manager grants, changes and revokes roles; others may not", func(t *testing.T) {
		u := pgtest.User(t, w.s)
		email := pgtest.Scalar[string](t, w.s.Pool(), `SELECT email FROM users WHERE id = $1`, u)
		if _, err := w.svc.GrantStaff(ctx, boxOffice, w.v.TheatreID, email, auth.StaffUsher); !errors.Is(err, admin.ErrRole) {
			t.Fatalf("box office granting: %v", err)
		}
		if _, err := w.svc.GrantStaff(ctx, w.stafer, w.v.TheatreID, email, auth.StaffUsher); !errors.Is(err, booking.ErrNotFound) {
			t.Fatalf("another theatre's manager granting: %v", err)
		}
		if _, err := w.svc.GrantStaff(ctx, manager, w.v.TheatreID, email, "janitor"); err == nil {
			t.Fatal("a role that does not exist was granted")
		}
		m, err := w.svc.GrantStaff(ctx, manager, w.v.TheatreID, "  "+email+" ", auth.StaffUsher)
		if err != nil || m.ID != u || m.StaffRole != auth.StaffUsher || m.Role != auth.RoleTheatreAdmin {
			t.Fatalf("grant = %+v, %v", m, err)
		}
		if _, err := w.svc.GrantStaff(ctx, manager, w.v.TheatreID, email, auth.StaffUsher); err != nil {
			t.Fatal(err)
		}
		if m, err = w.svc.GrantStaff(ctx, manager, w.v.TheatreID, email, auth.StaffBoxOffice); err != nil || m.StaffRole != auth.StaffBoxOffice {
			t.Fatalf("change = %+v, %v", m, err)
		}
		entries := pgtest.Scalar[int](t, w.s.Pool(), `
			SELECT count(*) FROM audit_log WHERE action = 'theatre_admin.grant' AND object LIKE '%' || $1`, u)
		if entries != 2 {
			t.Fatalf("%d grant entries, want 2 (the usher's, the change to box office; the repeat wrote none)", entries)
		}
		staff, err := w.svc.Staff(ctx, manager, w.v.TheatreID)
		if err != nil || len(staff) != 4 || staff[0].StaffRole != auth.StaffManager {
			t.Fatalf("staff = %+v, %v", staff, err)
		}
		if err := w.svc.RevokeStaff(ctx, usher, w.v.TheatreID, u); !errors.Is(err, admin.ErrRole) {
			t.Fatalf("usher revoking: %v", err)
		}
		if err := w.svc.RevokeStaff(ctx, manager, w.v.TheatreID, u); err != nil {
			t.Fatal(err)
		}
		if r := pgtest.Scalar[string](t, w.s.Pool(), `SELECT role FROM users WHERE id = $1`, u); r != string(auth.RoleMoviegoer) {
			t.Fatalf("revoked staff with no theatre left is %s", r)
		}
	})
}

// TestAttendance counts the seats of a show's confirmed bookings, and
// those admitted at its door, for every staff role of its theatre: a
// booking admitted whole, a ticket of another show, a sale at the counter,
// and a booking cancelled after its seats came in (no longer sold, so not
// counted either way).
func TestAttendance(t *testing.T) {
	w := newDoorWorld(t)
	usher := w.staff[auth.StaffUsher]
	attendance := func(a admin.Actor) booking.Attendance {
		t.Helper()
		at, err := w.svc.Attendance(ctx, a, w.show)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	admit := func(b booking.Booking, show int64) {
		t.Helper()
		if a, err := w.svc.CheckIn(ctx, usher, w.show, w.keys.Code(b.Code, show), ""); err != nil || a.Result == booking.UnknownTicket {
			t.Fatalf("admit %s: %+v, %v", b.ID, a, err)
		}
	}
	if at := attendance(usher); at != (booking.Attendance{Open: true}) {
		t.Fatalf("before any sale = %+v", at)
	}
	pair := w.book(w.show, "A1", "A2")
	w.book(w.show, "A3")
	sold, err := w.svc.Sell(ctx, w.staff[auth.StaffBoxOffice], booking.CounterSale{ShowID: w.show, Seats: []string{"B1", "B2", "B3"},
		PaidBy: booking.PaidCash, Name: "Walk-in", Key: "attendance"})
	if err != nil {
		t.Fatal(err)
	}
	late := w.book(w.show, "C1")
	admit(pair, w.show)
	admit(sold, w.show)
	admit(late, w.show)
	admit(w.book(w.other, "A1"), w.other) // refused: another show's
	if _, err := w.s.CancelBooking(ctx, late.UserID, late.ID); err != nil {
		t.Fatal(err)
	}
	for role, a := range w.staff {
		if at := attendance(a); at != (booking.Attendance{Admitted: 5, Sold: 6, Open: true}) {
			t.Errorf("as %s: %+v, want 5 of 6 admitted, open", role, at)
		}
	}
	if _, err := w.svc.Attendance(ctx, w.stafer, w.show); !errors.Is(err, booking.ErrNotFound) {
		t.Errorf("another theatre's staff: %v, want not found", err)
	}
	pgtest.Exec(t, w.s.Pool(), `UPDATE shows SET starts_at = now() - interval '4 hours', ends_at = now() - interval '1 hour' WHERE id = $1`, w.show)
	if at := attendance(usher); at.Open || at.Admitted != 5 {
		t.Errorf("a show that has ended = %+v, want closed", at)
	}
}
