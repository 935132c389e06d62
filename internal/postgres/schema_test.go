package postgres_test

import (
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/money"
	"github.com/marquee-tickets/marquee/internal/pgtest"
	"github.com/marquee-tickets/marquee/internal/postgres"
)

// The store's Go side and the hold_seats function speak of the same
// outcomes: the Go list is the hold_outcome enum's labels, in order.
func TestHoldOutcomesMatchTheSchema(t *testing.T) {
	s := pgtest.NewStore(t, 2)
	labels := pgtest.Scalar[[]string](t, s.Pool(), `SELECT enum_range(NULL::hold_outcome)::text[]`)
	var goSide []string
	for _, o := range postgres.HoldOutcomes {
		goSide = append(goSide, string(o))
	}
	if !slices.Equal(labels, goSide) {
		t.Fatalf("hold_outcome labels %v, Go's holdOutcomes %v", labels, goSide)
	}
}

// Every state and status the booking domain names is one a CHECK
// constraint of its column allows, and the constraint allows no other: the
// Go constants and the SQL (the functions write these values too) cannot
// drift apart.
func TestStatusValuesMatchTheSchema(t *testing.T) {
	s := pgtest.NewStore(t, 2)
	literal := regexp.MustCompile(`'([^']*)'::text`)
	for _, tc := range []struct {
		table, column string
		goSide        []string
	}{
		{"show_seats", "status", strs(booking.SeatAvailable, booking.SeatHeld, booking.SeatBooked, booking.SeatBlocked)},
		{"holds", "state", strs(booking.HoldHeld, booking.HoldConfirmed, booking.HoldExpired, booking.HoldCancelled)},
		{"bookings", "status", strs(booking.BookingConfirmed, booking.BookingCancelled)},
		{"payments", "outcome", strs(booking.OutcomeBooked, booking.OutcomeRefundRequired)},
		{"payments", "reason", []string{booking.ReasonHoldExpired, booking.ReasonHoldCancelled,
			booking.ReasonAlreadyConfirmed, booking.ReasonAmountMismatch, booking.ReasonUnknownHold}},
		{"refunds", "status", strs(booking.RefundPending, booking.RefundSucceeded, booking.RefundFailed)},
	} {
		t.Run(tc.table+"."+tc.column, func(t *testing.T) {
			// The CHECK constraints on this column alone.
			defs := pgtest.Scalar[[]string](t, s.Pool(), `
				SELECT coalesce(array_agg(pg_get_constraintdef(c.oid)), '{}') FROM pg_constraint c
				 WHERE c.conrelid = $1::regclass AND c.contype = 'c'
				   AND c.conkey = ARRAY[(SELECT attnum FROM pg_attribute
				                          WHERE attrelid = $1::regclass AND attname = $2)]`,
				tc.table, tc.column)
			if len(defs) != 1 {
				t.Fatalf("%d CHECK constraints on %s.%s alone, want 1: %v", len(defs), tc.table, tc.column, defs)
			}
			var allowed []string
			for _, m := range literal.FindAllStringSubmatch(defs[0], -1) {
				allowed = append(allowed, m[1])
			}
			slices.Sort(allowed)
			want := slices.Sorted(slices.Values(tc.goSide))
			if !slices.Equal(allowed, want) {
				t.Fatalf("%s.%s allows %v (%s); Go names %v", tc.table, tc.column, allowed, defs[0], want)
			}
		})
	}
}

func strs[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// The database keeps the bounds of a payment report that
// booking.Payment.Validate keeps, for any writer: an amount past
// money.MaxAmountMinor, or a payment id that could read as a path, is
// refused by a constraint; the bound itself is taken.
func TestPaymentBoundsAreTheSchemas(t *testing.T) {
	s := pgtest.NewStore(t, 2)
	insert := func(id string, amount int64) error {
		_, err := s.Pool().Exec(t.Context(), `
			INSERT INTO payments (payment_id, hold_ref, amount_minor, currency, outcome, reason, received_at)
			VALUES ($1, 'no-such-hold', $2, 'INR', 'REFUND_REQUIRED', 'unknown_hold', now())`, id, amount)
		return err
	}
	for name, c := range map[string]struct {
		id         string
		amount     int64
		constraint string
	}{
		"amount past the bound":     {"pay_over", money.MaxAmountMinor + 1, "payments_amount_bound"},
		"amount near int64's end":   {"pay_huge", 9e18, "payments_amount_bound"},
		"payment id that is a path": {"../shows/64/cancel", 1, "payments_id_chars"},
		"payment id with a percent": {"pay%2F", 1, "payments_id_chars"},
	} {
		var pgErr *pgconn.PgError
		if err := insert(c.id, c.amount); !errors.As(err, &pgErr) || pgErr.ConstraintName != c.constraint {
			t.Errorf("%s: %v, want %s to refuse it", name, err, c.constraint)
		}
	}
	if err := insert("a:b.c-d_E", money.MaxAmountMinor); err != nil {
		t.Fatalf("the bound itself: %v", err)
	}
	_, err := s.Pool().Exec(t.Context(), `
		INSERT INTO refunds (payment_id, amount_minor, currency, reason, created_at, updated_at)
		VALUES ('a:b.c-d_E', $1, 'INR', 'unknown_hold', now(), now())`, money.MaxAmountMinor+1)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.ConstraintName != "refunds_amount_bound" {
		t.Fatalf("a refund past the bound: %v", err)
	}
	if got := pgtest.Scalar[int64](t, s.Pool(), `
		SELECT substring(pg_get_constraintdef(oid) FROM '[0-9]+')::bigint FROM pg_constraint
		 WHERE conname = 'payments_amount_bound'`); got != money.MaxAmountMinor {
		t.Fatalf("payments_amount_bound is %d, money.MaxAmountMinor %d", got, money.MaxAmountMinor)
	}
	// A refund written past the bound before it (the trigger off, as it
	// was) can still be started and recorded: the worker is not stuck.
	if err := insert("pay_old", 9e18); err == nil {
		t.Fatal("the payment bound let 9e18 in")
	}
	pgtest.Exec(t, s.Pool(), `ALTER TABLE payments DROP CONSTRAINT payments_amount_bound`)
	pgtest.Exec(t, s.Pool(), `ALTER TABLE refunds DISABLE TRIGGER refunds_amount_bound`)
	if err := insert("pay_old", 9e18); err != nil {
		t.Fatal(err)
	}
	id := pgtest.Scalar[string](t, s.Pool(), `INSERT INTO refunds (payment_id, amount_minor, currency, reason, created_at, updated_at)
		VALUES ('pay_old', 9000000000000000000, 'INR', 'unknown_hold', now(), now()) RETURNING id::text`)
	pgtest.Exec(t, s.Pool(), `ALTER TABLE refunds ENABLE TRIGGER refunds_amount_bound`)
	started, err := s.StartRefund(t.Context(), id)
	if err != nil || started.AmountMinor != 9e18 {
		t.Fatalf("start an old refund past the bound = %+v, %v", started, err)
	}
	if err := s.RefundFailed(t.Context(), id, errors.New("refused")); err != nil {
		t.Fatalf("record its failure: %v", err)
	}
}
