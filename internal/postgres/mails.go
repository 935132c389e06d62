package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/marquee-tickets/marquee/internal/audit"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/jobs"
	"github.com/marquee-tickets/marquee/internal/mail"
)

// queueMails runs insert, a statement inserting rows into mails and
// returning their ids (a mail whose once_key is taken is skipped by its ON
// CONFLICT), and queues the job that sends each, in tx: a mail owed and
// its job commit with the change that owes it, or neither does.
func (s *Store) queueMails(ctx context.Context, tx pgx.Tx, insert string, args ...any) error {
	_, err := s.queueMailsCounted(ctx, tx, insert, args...)
	return err
}

// queueMailsCounted is queueMails, and says how many mails it queued.
func (s *Store) queueMailsCounted(ctx context.Context, tx pgx.Tx, insert string, args ...any) (int, error) {
	rows, err := tx.Query(ctx, insert, args...)
	if err != nil {
		return 0, fmt.Errorf("queue mail: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, fmt.Errorf("queue mail: %w", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: jobs.Mail{MailID: id}, InsertOpts: s.dueNow()}
	}
	if _, err := s.jobs.InsertManyTx(ctx, tx, params); err != nil {
		return 0, fmt.Errorf("queue %d mails: %w", len(ids), err)
	}
	return len(ids), nil
}

// dueNow is the insert options of a job due at once: nil, except with an
// injected clock, whose now it is then due at (River's own clock would
// make a test's job due at the machine's time).
func (s *Store) dueNow() *river.InsertOpts {
	if s.Clock == nil {
		return nil
	}
	return &river.InsertOpts{ScheduledAt: s.Clock()}
}

// mailToOwner inserts a mail of kind $1 to the owner of booking $2, keyed
// by its kind and the booking, at $3 (NULL: the database's clock).
const mailToOwner = `
	INSERT INTO mails (kind, recipient, user_id, booking_id, show_id, once_key, created_at)
	SELECT $1, coalesce(b.customer_email, u.email), CASE WHEN b.channel = 'online' THEN b.user_id END, b.id, b.show_id,
	       $1 || ':' || b.id, coalesce($3::timestamptz, clock_timestamp())
	  FROM bookings b JOIN users u ON u.id = b.user_id
	 WHERE b.id = $2 AND (b.channel = 'online' OR b.customer_email IS NOT NULL)
	ON CONFLICT (once_key) DO NOTHING
	RETURNING id`

// mailTicketAgain inserts a mail of kind $4 (ticket_resent or
// booking_moved) with booking $1's ticket to its owner, asked for by staff
// member $2, at $3 (NULL: the database's clock): a new mail each time,
// unlike mailToOwner's once.
const mailTicketAgain = `
	INSERT INTO mails (kind, recipient, user_id, booking_id, show_id, requested_by, created_at)
	SELECT $4, coalesce(b.customer_email, u.email), CASE WHEN b.channel = 'online' THEN b.user_id END,
	       b.id, b.show_id, $2, coalesce($3::timestamptz, clock_timestamp())
	  FROM bookings b JOIN users u ON u.id = b.user_id
	 WHERE b.id = $1 AND (b.channel = 'online' OR b.customer_email IS NOT NULL)
	RETURNING id`

// RefundFailingAfter is the failed attempt after which a refund's
// moviegoer is told it is delayed and customer service is asked to look:
// River's fifth retry comes about 16 minutes after the first attempt.
const RefundFailingAfter = 5

// queueRefundMails queues the mails a refund's progress owes: kind $1
// (refund_paid or refund_failing) to the payer of refund $2, and with
// refund_failing the same to customer service ($4, if set).
func (s *Store) queueRefundMails(ctx context.Context, tx pgx.Tx, kind mail.Kind, refundID string) error {
	return s.queueMails(ctx, tx, `
		WITH r AS (
			SELECT r.id, r.payment_id, r.booking_id, p.user_id, h.show_id, u.email
			  FROM refunds r
			  JOIN payments p ON p.payment_id = r.payment_id
			  JOIN users u ON u.id = p.user_id
			  LEFT JOIN holds h ON h.id = p.hold_id
			 WHERE r.id = $2
		),
		owed (kind, recipient) AS (
			SELECT $1::text, email FROM r
			UNION ALL
			SELECT 'refund_failing_staff', $4 FROM r WHERE $1 = 'refund_failing' AND $4 <> ''
		)
		INSERT INTO mails (kind, recipient, user_id, booking_id, show_id, refund_id, payment_id, once_key, created_at)
		SELECT o.kind, o.recipient, r.user_id, r.booking_id, r.show_id, r.id, r.payment_id, o.kind || ':' || r.id,
		       coalesce($3::timestamptz, clock_timestamp())
		  FROM r, owed o
		ON CONFLICT (once_key) DO NOTHING
		RETURNING id`, string(kind), refundID, s.now(), s.SupportEmail)
}

// mailBookingColumns are a booking as a mail shows it (mail.Booking), of
// bookings b and its refund r.
const mailBookingColumns = `b.id::text, b.code, b.seat_ids, b.amount_minor, b.currency, b.status = 'CONFIRMED',
	coalesce(r.amount_minor, 0), b.channel <> 'online', b.cancelled_by IS NOT DISTINCT FROM 'theatre',
	coalesce(b.customer_name, ''), EXISTS (SELECT 1 FROM booking_moves WHERE booking_id = b.id)`

// MailToSend is a queued mail as its job finds it.
type MailToSend struct {
	Facts  mail.Facts
	Status string // QUEUED, SENT, FAILED or NOT_SENT
}

// MailFacts reads what mail id says, as things stand now.
func (s *Store) MailFacts(ctx context.Context, id int64) (MailToSend, error) {
	var (
		m            MailToSend
		kind         string
		userID       *string
		bookingID    *string
		showID       *int64
		refundID     *string
		paymentID    *string
		rescheduleID *int64
		theatreID    *int64
		moviegoerN   *string
		moviegoerE   *string
	)
	f := &m.Facts
	err := s.pool.QueryRow(ctx, `
		SELECT m.kind, m.status, m.recipient, coalesce(ru.name, ''), m.user_id::text, m.booking_id::text, m.show_id,
		       m.refund_id::text, m.payment_id, m.reschedule_id, coalesce(u.name, bk.customer_name, cc.customer_name),
		       coalesce(u.email, bk.customer_email, cc.customer_email),
		       coalesce($2::timestamptz, clock_timestamp()), sh.screen_theatre
		  FROM mails m
		  LEFT JOIN users u ON u.id = m.user_id
		  LEFT JOIN bookings bk ON bk.id = m.booking_id AND bk.channel <> 'online'
		  -- a show's cancellation told to a counter customer: the name they
		  -- gave at the counter
		  LEFT JOIN LATERAL (
		       SELECT b.customer_name, lower(b.customer_email) AS customer_email FROM bookings b
		        WHERE m.kind = 'show_cancelled' AND m.user_id IS NULL AND b.show_id = m.show_id
		          AND b.channel <> 'online' AND lower(b.customer_email) = lower(m.recipient)
		        ORDER BY b.created_at DESC, b.id LIMIT 1) cc ON true
		  LEFT JOIN users ru ON ru.email = m.recipient
		  LEFT JOIN LATERAL (SELECT sc.theatre_id AS screen_theatre FROM shows s JOIN screens sc ON sc.id = s.screen_id
		                      WHERE s.id = m.show_id) sh ON true
		 WHERE m.id = $1`, id, s.now()).Scan(&kind, &m.Status, &f.To.Email, &f.To.Name, &userID, &bookingID, &showID,
		&refundID, &paymentID, &rescheduleID, &moviegoerN, &moviegoerE, &f.Now, &theatreID)
	if errors.Is(err, pgx.ErrNoRows) {
		return MailToSend{}, fmt.Errorf("mail %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return MailToSend{}, fmt.Errorf("read mail %d: %w", id, err)
	}
	f.ID, f.Kind = id, mail.Kind(kind)
	if moviegoerE != nil {
		f.Moviegoer = mail.Person{Name: *moviegoerN, Email: *moviegoerE}
		if f.To.Name == "" && f.To.Email == *moviegoerE {
			f.To.Name = *moviegoerN
		}
	}
	if showID != nil {
		if err := s.pool.QueryRow(ctx, `
			SELECT s.id, mv.title, sc.name, coalesce(mv.rating, ''), s.starts_at, s.ends_at, t.name, t.address, t.timezone
			  FROM shows s JOIN movies mv ON mv.id = s.movie_id JOIN screens sc ON sc.id = s.screen_id
			  JOIN theatres t ON t.id = sc.theatre_id
			 WHERE s.id = $1`, *showID).Scan(&f.Show.ID, &f.Show.Movie, &f.Show.Screen, &f.Show.Rating, &f.Show.StartsAt,
			&f.Show.EndsAt, &f.Theatre.Name, &f.Theatre.Address, &f.Theatre.TimeZone); err != nil {
			return MailToSend{}, fmt.Errorf("read show of mail %d: %w", id, err)
		}
		if f.Policy, err = refundPolicy(ctx, s.pool, *theatreID); err != nil {
			return MailToSend{}, fmt.Errorf("mail %d: %w", id, err)
		}
	}
	if rescheduleID != nil {
		// The move the mail is about, whatever moves followed: its own
		// from and to (the next move has a mail of its own).
		mv := &mail.Move{}
		if err := s.pool.QueryRow(ctx, `
			SELECT from_starts_at, to_starts_at, to_ends_at FROM show_reschedules WHERE id = $1`,
			*rescheduleID).Scan(&mv.From, &mv.To, &f.Show.EndsAt); err != nil {
			return MailToSend{}, fmt.Errorf("read the move of mail %d: %w", id, err)
		}
		f.Move, f.Show.StartsAt = mv, mv.To
	}
	// The bookings it is about: its own; every booking of the show the
	// recipient had when the theatre cancelled it (the moviegoer's online
	// bookings, and those sold at the counter to their address: a counter
	// sale belongs to its seller's account, never the customer's); or every
	// booking of the recipient's that a move took along.
	var rows pgx.Rows
	switch {
	case f.Kind == mail.ShowCancelled && showID != nil:
		rows, err = s.pool.Query(ctx, `
			SELECT `+mailBookingColumns+`
			  FROM bookings b JOIN refunds r ON r.booking_id = b.id AND r.reason = 'show_cancelled'
			 WHERE b.show_id = $1
			   AND ((b.channel = 'online' AND b.user_id = $2::uuid)
			        OR (b.channel <> 'online' AND lower(b.customer_email) = lower($3)))
			 ORDER BY b.created_at, b.id`, *showID, userID, f.To.Email)
	case f.Kind == mail.ShowRescheduled && rescheduleID != nil:
		rows, err = s.pool.Query(ctx, `
			SELECT `+mailBookingColumns+`
			  FROM booking_moves bm JOIN bookings b ON b.id = bm.booking_id JOIN users u ON u.id = b.user_id
			  LEFT JOIN refunds r ON r.booking_id = b.id
			 WHERE bm.reschedule_id = $1 AND lower(coalesce(b.customer_email, u.email)) = lower($2)
			   AND (b.channel = 'online' OR b.customer_email IS NOT NULL)
			 ORDER BY b.created_at, b.id`, *rescheduleID, f.To.Email)
	case bookingID != nil:
		rows, err = s.pool.Query(ctx, `
			SELECT `+mailBookingColumns+`
			  FROM bookings b LEFT JOIN refunds r ON r.booking_id = b.id
			 WHERE b.id = $1`, *bookingID)
	}
	moved := false
	if rows != nil {
		f.Bookings, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (mail.Booking, error) {
			var (
				b        mail.Booking
				customer string
				wasMoved bool
			)
			err := r.Scan(&b.ID, &b.Code, &b.Seats, &b.AmountMinor, &b.Currency, &b.Confirmed, &b.RefundMinor,
				&b.AtCounter, &b.ByTheatre, &customer, &wasMoved)
			if f.To.Name == "" && customer != "" {
				f.To.Name = customer
			}
			moved = moved || wasMoved
			return b, err
		})
	}
	if err != nil {
		return MailToSend{}, fmt.Errorf("read bookings of mail %d: %w", id, err)
	}
	if moved && f.Kind != mail.ShowCancelled {
		// What the pages promise a booking whose show moved under it, the
		// mail says too (a ticket sent again, a move's mail).
		f.Policy = booking.MovedPolicy
	}
	if refundID != nil {
		r := &mail.Refund{}
		if err := s.pool.QueryRow(ctx, `
			SELECT id::text, amount_minor, currency, attempts, coalesce(last_error, ''), payment_id FROM refunds WHERE id = $1`,
			*refundID).Scan(&r.ID, &r.AmountMinor, &r.Currency, &r.Attempts, &r.LastError, &r.PaymentID); err != nil {
			return MailToSend{}, fmt.Errorf("read refund of mail %d: %w", id, err)
		}
		f.Refund = r
	}
	if paymentID != nil && f.Kind == mail.PaymentRefunded {
		p := &mail.Payment{ID: *paymentID}
		if err := s.pool.QueryRow(ctx, `
			SELECT amount_minor, currency, coalesce(reason, ''), received_at FROM payments WHERE payment_id = $1`,
			*paymentID).Scan(&p.AmountMinor, &p.Currency, &p.Reason, &p.ReceivedAt); err != nil {
			return MailToSend{}, fmt.Errorf("read payment of mail %d: %w", id, err)
		}
		f.Payment = p
	}
	return m, nil
}

// MailSent records that mail id went out on attempt.
func (s *Store) MailSent(ctx context.Context, id int64, attempt int) error {
	if _, err := s.pool.Exec(ctx, `
		UPDATE mails SET status = 'SENT', attempts = $2, last_error = NULL, sent_at = coalesce($3::timestamptz, clock_timestamp())
		 WHERE id = $1`, id, attempt, s.now()); err != nil {
		return fmt.Errorf("record mail %d sent: %w", id, err)
	}
	return nil
}

// MailFailed records why attempt at mail id failed; final marks it FAILED
// (its job gives up).
func (s *Store) MailFailed(ctx context.Context, id int64, attempt int, cause error, final bool) error {
	msg := cause.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	if _, err := s.pool.Exec(ctx, `
		UPDATE mails SET attempts = $2, last_error = $3, status = CASE WHEN $4 THEN 'FAILED' ELSE status END
		 WHERE id = $1 AND status <> 'SENT'`, id, attempt, msg, final); err != nil {
		return fmt.Errorf("record mail %d failed: %w", id, err)
	}
	return nil
}

// MailRecord is a mail as staff see it in a booking's history.
type MailRecord struct {
	ID        int64
	Kind      mail.Kind
	Recipient string
	Status    string
	Attempts  int
	LastError string
	CreatedAt time.Time
	SentAt    *time.Time
}

// BookingMails lists the mails about booking bookingID, oldest first: its
// own, its show's cancellation and the moves that took it along, and its
// refund's.
func (s *Store) BookingMails(ctx context.Context, bookingID string) ([]MailRecord, error) {
	if !validID(bookingID) {
		return nil, fmt.Errorf("booking %q: %w", bookingID, booking.ErrNotFound)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT m.id, m.kind, m.recipient, m.status, m.attempts, coalesce(m.last_error, ''), m.created_at, m.sent_at
		  FROM mails m, bookings b
		 WHERE b.id = $1
		   AND (m.booking_id = b.id
		        OR (m.kind = 'show_cancelled' AND m.show_id = b.show_id
		            AND CASE WHEN b.channel = 'online' THEN m.user_id = b.user_id
		                     ELSE lower(m.recipient) = lower(b.customer_email) END)
		        OR (m.kind = 'show_rescheduled'
		            AND m.reschedule_id IN (SELECT reschedule_id FROM booking_moves WHERE booking_id = b.id)
		            AND lower(m.recipient) = lower(coalesce(b.customer_email, (SELECT email FROM users WHERE id = b.user_id))))
		        OR m.refund_id IN (SELECT id FROM refunds WHERE booking_id = b.id))
		 ORDER BY m.created_at, m.id`, bookingID)
	if err != nil {
		return nil, fmt.Errorf("mails of booking %s: %w", bookingID, err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MailRecord, error) {
		var m MailRecord
		var kind string
		err := r.Scan(&m.ID, &kind, &m.Recipient, &m.Status, &m.Attempts, &m.LastError, &m.CreatedAt, &m.SentAt)
		m.Kind = mail.Kind(kind)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("mails of booking %s: %w", bookingID, err)
	}
	return list, nil
}

// ResendTicket queues booking bookingID's ticket again, to its owner, with
// audit entry e (its actor is who asked). Only a confirmed booking has a
// ticket: another is booking.ErrNoTicket.
func (s *Store) ResendTicket(ctx context.Context, bookingID string, e audit.Entry) error {
	if !validID(bookingID) {
		return fmt.Errorf("booking %q: %w", bookingID, booking.ErrNotFound)
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var status booking.BookingStatus
		err := tx.QueryRow(ctx, `SELECT status FROM bookings WHERE id = $1 FOR SHARE`, bookingID).Scan(&status)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("booking %s: %w", bookingID, booking.ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("read booking %s: %w", bookingID, err)
		}
		if status != booking.BookingConfirmed {
			return fmt.Errorf("resend ticket of booking %s: %w", bookingID, booking.ErrNoTicket)
		}
		if err := s.queueMails(ctx, tx, mailTicketAgain, bookingID, e.ActorID, s.now(), string(mail.TicketResent)); err != nil {
			return err
		}
		return s.insertAudit(ctx, tx, e)
	})
}

// StaffBooking is a booking as the theatre's staff see it.
type StaffBooking struct {
	booking.Booking
	TheatreID     int64
	TheatreName   string
	TimeZone      string
	MovieID       int64
	MovieTitle    string
	ScreenName    string
	StartsAt      time.Time
	CustomerName  string
	CustomerEmail string
}

// StaffBooking reads booking bookingID, whoever's it is: the caller has
// decided who may see it (by its TheatreID).
func (s *Store) StaffBooking(ctx context.Context, bookingID string) (StaffBooking, error) {
	if !validID(bookingID) {
		return StaffBooking{}, fmt.Errorf("booking %q: %w", bookingID, booking.ErrNotFound)
	}
	sb, err := scanStaffBooking(s.pool.QueryRow(ctx, `SELECT `+staffBookingColumns+` FROM `+staffBookingFrom+` WHERE b.id = $1`, bookingID))
	if errors.Is(err, pgx.ErrNoRows) {
		return StaffBooking{}, fmt.Errorf("booking %s: %w", bookingID, booking.ErrNotFound)
	}
	if err != nil {
		return StaffBooking{}, fmt.Errorf("read booking %s: %w", bookingID, err)
	}
	return sb, nil
}

// KeepMail puts a message into the dev mailbox (mail.Mailbox's Keep).
func (s *Store) KeepMail(ctx context.Context, to, subject string, raw []byte) error {
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO dev_mailbox (recipient, subject, raw, received_at) VALUES ($1, $2, $3, coalesce($4::timestamptz, clock_timestamp()))`,
		to, subject, raw, s.now()); err != nil {
		return fmt.Errorf("keep mail to %s: %w", to, err)
	}
	return nil
}

// KeptMail is a message in the dev mailbox.
type KeptMail struct {
	ID         int64
	Recipient  string
	Subject    string
	ReceivedAt time.Time
	Raw        []byte // only from KeptMail, not the list
}

// DevMailbox lists the newest limit messages of the dev mailbox, to
// recipient only unless it is "".
func (s *Store) DevMailbox(ctx context.Context, recipient string, limit int) ([]KeptMail, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, recipient, subject, received_at FROM dev_mailbox
		 WHERE $1 = '' OR recipient = $1 ORDER BY id DESC LIMIT $2`, recipient, limit)
	if err != nil {
		return nil, fmt.Errorf("dev mailbox: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (KeptMail, error) {
		var m KeptMail
		err := r.Scan(&m.ID, &m.Recipient, &m.Subject, &m.ReceivedAt)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("dev mailbox: %w", err)
	}
	return list, nil
}

// KeptMail reads message id of the dev mailbox, if it is to recipient (or
// recipient is "").
func (s *Store) KeptMail(ctx context.Context, id int64, recipient string) (KeptMail, error) {
	var m KeptMail
	err := s.pool.QueryRow(ctx, `
		SELECT id, recipient, subject, received_at, raw FROM dev_mailbox WHERE id = $1 AND ($2 = '' OR recipient = $2)`,
		id, recipient).Scan(&m.ID, &m.Recipient, &m.Subject, &m.ReceivedAt, &m.Raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return KeptMail{}, fmt.Errorf("mail %d: %w", id, booking.ErrNotFound)
	}
	if err != nil {
		return KeptMail{}, fmt.Errorf("read mail %d: %w", id, err)
	}
	return m, nil
}
