package postgres_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/marquee-tickets/marquee/internal/booking"
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
