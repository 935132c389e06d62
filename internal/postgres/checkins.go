package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/marquee-tickets/marquee/internal/booking"
)

// Admit answers one scan at a show's door and records it: a confirmed
// booking of the show is admitted once, however many scans of it come at
// once; every scan is kept, with its answer. A scan's At zero is now.
func (s *Store) Admit(ctx context.Context, sc booking.Scan) (booking.Admission, error) {
	var a booking.Admission
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		a, err = admit(ctx, tx, sc, s.now())
		return err
	})
	if err != nil {
		return booking.Admission{}, fmt.Errorf("admit %q at show %d: %w", sc.Short, sc.ShowID, err)
	}
	return a, nil
}

func admit(ctx context.Context, tx pgx.Tx, sc booking.Scan, now any) (booking.Admission, error) {
	var a booking.Admission
	var showID int64
	var status booking.BookingStatus
	// FOR SHARE: a cancellation under way finishes first, so a ticket is
	// never admitted in the same instant it is refunded.
	err := tx.QueryRow(ctx, `
		SELECT b.id::text, b.show_id, b.seat_ids, b.status, coalesce(b.customer_name, u.name)
		  FROM bookings b JOIN users u ON u.id = b.user_id
		 WHERE b.code = upper($1) FOR SHARE OF b`, sc.Short).
		Scan(&a.BookingID, &showID, &a.Seats, &status, &a.Name)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		a.Result = booking.UnknownTicket
	case err != nil:
		return a, err
	case showID != sc.ShowID:
		a.Result = booking.WrongShow
		if a.OtherShow, err = showing(ctx, tx, showID); err != nil {
			return a, err
		}
	case status != booking.BookingConfirmed:
		a.Result = booking.TicketCancelled
	default:
		// Inserted: this scan admits it. Not: the scan that did committed
		// first, and this statement's snapshot sees it.
		err := tx.QueryRow(ctx, `
			INSERT INTO checkins (booking_id, show_id, admitted_at, admitted_by, gate, offline)
			VALUES ($1, $2, coalesce($3::timestamptz, $4::timestamptz, now()), $5, $6, $7)
			ON CONFLICT (booking_id) DO NOTHING RETURNING admitted_at`,
			a.BookingID, sc.ShowID, nullTime(sc.At), now, sc.By, sc.Gate, sc.Offline).Scan(&a.AdmittedAt)
		if err == nil {
			a.Result = booking.Admitted
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return a, err
		} else {
			a.Result = booking.AlreadyAdmitted
		}
		err = tx.QueryRow(ctx, `
			SELECT c.admitted_at, u.name, c.gate FROM checkins c JOIN users u ON u.id = c.admitted_by
			 WHERE c.booking_id = $1`, a.BookingID).Scan(&a.AdmittedAt, &a.By, &a.Gate)
		if err != nil {
			return a, err
		}
	}
	var booked *string
	if a.BookingID != "" {
		booked = &a.BookingID
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO checkin_scans (show_id, booking_id, scanned_at, scanned_by, gate, offline, phone_result, result)
		VALUES ($1, $2, coalesce($3::timestamptz, $4::timestamptz, now()), $5, $6, $7, $8, $9)`,
		sc.ShowID, booked, nullTime(sc.At), now, sc.By, sc.Gate, sc.Offline, string(sc.PhoneResult), string(a.Result))
	return a, err
}

// nullTime is t, or SQL NULL for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// showing names show id to a person.
func showing(ctx context.Context, q querier, id int64) (booking.Showing, error) {
	sh := booking.Showing{ID: id}
	err := q.QueryRow(ctx, `
		SELECT mv.title, sc.name, s.starts_at, t.timezone
		  FROM shows s JOIN movies mv ON mv.id = s.movie_id JOIN screens sc ON sc.id = s.screen_id
		  JOIN theatres t ON t.id = sc.theatre_id
		 WHERE s.id = $1`, id).Scan(&sh.Movie, &sh.Screen, &sh.StartsAt, &sh.TimeZone)
	if err != nil {
		return sh, fmt.Errorf("show %d: %w", id, err)
	}
	return sh, nil
}

// DoorList is every booking of show showID, as a phone at the door
// downloads it.
func (s *Store) DoorList(ctx context.Context, showID int64) ([]booking.DoorTicket, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT b.code, b.id::text, b.seat_ids, coalesce(b.customer_name, u.name), b.status, c.admitted_at
		  FROM bookings b JOIN users u ON u.id = b.user_id
		  LEFT JOIN checkins c ON c.booking_id = b.id
		 WHERE b.show_id = $1 ORDER BY b.code`, showID)
	if err != nil {
		return nil, fmt.Errorf("door list of show %d: %w", showID, err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[booking.DoorTicket])
	if err != nil {
		return nil, fmt.Errorf("door list of show %d: %w", showID, err)
	}
	return list, nil
}

// DoubleAdmissions are the tickets of show showID a phone admitted
// offline after another scan had admitted them, oldest first.
func (s *Store) DoubleAdmissions(ctx context.Context, showID int64) ([]booking.DoubleAdmission, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT b.id::text, b.seat_ids, coalesce(b.customer_name, bu.name),
		       c.admitted_at, cu.name, c.gate, x.scanned_at, xu.name, x.gate
		  FROM checkin_scans x
		  JOIN bookings b ON b.id = x.booking_id JOIN users bu ON bu.id = b.user_id
		  JOIN checkins c ON c.booking_id = x.booking_id JOIN users cu ON cu.id = c.admitted_by
		  JOIN users xu ON xu.id = x.scanned_by
		 WHERE x.show_id = $1 AND x.offline AND x.phone_result = 'ADMITTED' AND x.result = 'already_admitted'
		 ORDER BY x.scanned_at, x.id`, showID)
	if err != nil {
		return nil, fmt.Errorf("double admissions of show %d: %w", showID, err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[booking.DoubleAdmission])
	if err != nil {
		return nil, fmt.Errorf("double admissions of show %d: %w", showID, err)
	}
	return list, nil
}

// Attendance is how many seats of show showID's confirmed bookings were
// admitted, of how many, or booking.ErrNotFound. It is one statement,
// since an open occupancy page asks for it every few seconds.
func (s *Store) Attendance(ctx context.Context, showID int64) (booking.Attendance, error) {
	var a booking.Attendance
	err := s.pool.QueryRow(ctx, `
		SELECT coalesce(b.admitted, 0), coalesce(b.sold, 0),
		       sh.status = 'SCHEDULED' AND coalesce($2::timestamptz, clock_timestamp()) < sh.ends_at
		  FROM shows sh
		  LEFT JOIN LATERAL (
		       SELECT sum(cardinality(bk.seat_ids)) FILTER (WHERE c.booking_id IS NOT NULL) AS admitted,
		              sum(cardinality(bk.seat_ids)) AS sold
		         FROM bookings bk LEFT JOIN checkins c ON c.booking_id = bk.id
		        WHERE bk.show_id = sh.id AND bk.status = 'CONFIRMED') b ON true
		 WHERE sh.id = $1`, showID, s.now()).Scan(&a.Admitted, &a.Sold, &a.Open)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("show %d: %w", showID, booking.ErrNotFound)
	}
	if err != nil {
		return a, fmt.Errorf("attendance of show %d: %w", showID, err)
	}
	return a, nil
}

// Attendees are the confirmed bookings of show showID, by name.
func (s *Store) Attendees(ctx context.Context, showID int64) ([]booking.Attendee, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT b.id::text, coalesce(b.customer_name, u.name),
		       coalesce(b.customer_email, CASE WHEN b.channel = 'online' THEN u.email ELSE '' END),
		       b.seat_ids, b.channel, c.admitted_at
		  FROM bookings b JOIN users u ON u.id = b.user_id
		  LEFT JOIN checkins c ON c.booking_id = b.id
		 WHERE b.show_id = $1 AND b.status = 'CONFIRMED'
		 ORDER BY lower(coalesce(b.customer_name, u.name)), b.created_at, b.id`, showID)
	if err != nil {
		return nil, fmt.Errorf("attendees of show %d: %w", showID, err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[booking.Attendee])
	if err != nil {
		return nil, fmt.Errorf("attendees of show %d: %w", showID, err)
	}
	return list, nil
}
