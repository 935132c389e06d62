package problem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/web/admission"
	"github.com/marquee-tickets/marquee/web/readable"
	"github.com/marquee-tickets/marquee/web/session"
)

// The error table: each domain error, however wrapped, has one answer.
func TestErrorTable(t *testing.T) {
	t.Parallel()
	wrap := func(err error) error { return fmt.Errorf("op: %w", err) }
	for _, tc := range []struct {
		err      error
		status   int
		code     string
		internal bool
	}{
		{wrap(&booking.SeatsUnavailableError{Seats: []string{"A1"}}), 409, "seats_unavailable", false},
		{wrap(&booking.ActiveHoldError{HoldID: "h"}), 409, "active_hold_exists", false},
		{wrap(&booking.HeldSeatsCapError{PerShow: true, Max: 20}), 429, "too_many_held_seats", false},
		{wrap(&booking.OrphanSeatError{Seats: []string{"F5"}, Suggestion: []string{"F6", "F7"}}), 409, "orphan_seat", false},
		{wrap(&booking.UnknownSeatsError{Seats: []string{"Z9"}}), 422, "unknown_seats", false},
		{wrap(&booking.DuplicateSeatsError{Seats: []string{"A1"}}), 422, "duplicate_seats", false},
		{wrap(&booking.TooManySeatsError{Asked: 11, Max: 10}), 422, "too_many_seats", false},
		{wrap(&booking.InvalidSeatError{Seat: "?"}), 422, "invalid_seat", false},
		{wrap(booking.ErrNoSeats), 422, "no_seats", false},
		{wrap(booking.ErrKeyReused), 422, "idempotency_key_reused", false},
		{wrap(booking.ErrShowClosed), 409, "show_closed", false},
		{wrap(booking.ErrHoldConfirmed), 409, "hold_confirmed", false},
		{wrap(&booking.AmountMismatchError{}), 422, "amount_mismatch", false},
		{wrap(booking.ErrPaymentConflict), 409, "payment_conflict", false},
		{wrap(booking.ErrCancellationClosed), 409, "cancellation_closed", false},
		{wrap(auth.ErrEmailTaken), 409, "email_taken", false},
		{wrap(auth.ErrBadCredentials), 401, "bad_credentials", false},
		{wrap(catalog.ErrShowOverlap), 409, "show_overlap", false},
		{wrap(booking.ErrNotFound), 404, "not_found", false},
		{&auth.FieldError{Field: "email", Message: "enter a valid email address"}, 422, "invalid_email", false},
		{payment.ErrMissingSignature, 400, "signature_missing", false},
		{payment.ErrMalformedSignature, 400, "signature_malformed", false},
		{payment.ErrBadSignature, 400, "signature_invalid", false},
		{payment.ErrStaleSignature, 400, "signature_stale", false},
		{echo.ErrNotFound, 404, "not_found", false},
		{echo.ErrMethodNotAllowed, 405, "method_not_allowed", false},
		{echo.ErrStatusRequestEntityTooLarge, 413, "body_too_large", false},
		{&http.MaxBytesError{Limit: 1}, 413, "body_too_large", false},
		{echo.ErrUnsupportedMediaType, 415, "unsupported_media_type", false},
		{echo.ErrTooManyRequests, 429, "rate_limited", false},
		{errors.New("pq: connection refused"), 500, "internal", true},
		{wrap(postgres.ErrUnavailable), 503, "unavailable", true},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), 503, "unavailable", true},
		{wrap(io.ErrUnexpectedEOF), 503, "unavailable", true},
		{wrap(context.DeadlineExceeded), 503, "timeout", true},
		{wrap(boxoffice.ErrProviderUnavailable), 503, "payment_provider_unavailable", false},
		{fmt.Errorf("checkout: %w", &boxoffice.AlreadyPaidError{BookingID: "b"}), 409, "already_paid", false},
		{&boxoffice.HoldNotActiveError{State: booking.HoldExpired}, 409, "hold_not_active", false},

		{wrap(admin.ErrPosterBusy), 503, "poster_busy", false},
		{wrap(catalog.ErrShowTooFarAhead), 422, "show_too_far_ahead", false},
		{wrap(catalog.ErrShowStarted), 409, "show_started", false},
		{wrap(catalog.ErrSameStart), 422, "same_start", false},
		{&PanicError{Err: booking.ErrNotFound}, 500, "internal", true},

		{wrap(session.ErrSignedOut), 401, "unauthenticated", false},
		{wrap(admission.ErrBusy), 503, "busy", false},
		{&readable.Error{In: "path"}, 400, "invalid_text", false},
		{fmt.Errorf("%w: %w", readable.ErrUnreadableBody, io.ErrUnexpectedEOF), 400, "unreadable_body", false},
		{fmt.Errorf("%w: %w", readable.ErrUnreadableBody, echo.ErrStatusRequestEntityTooLarge), 413, "body_too_large", false},
	} {
		t.Run(fmt.Sprintf("%T %v", tc.err, tc.err), func(t *testing.T) {
			ae, internal := For(tc.err)
			if ae.Status != tc.status || ae.Code != tc.code || internal != tc.internal {
				t.Fatalf("errorFor = %d %s internal=%v, want %d %s internal=%v",
					ae.Status, ae.Code, internal, tc.status, tc.code, tc.internal)
			}
			if len(ae.Message) < 8 || strings.Contains(ae.Message, "op:") {
				t.Fatalf("message %q is not for a person", ae.Message)
			}
			if ae.Status == http.StatusServiceUnavailable && (ae.Header["Retry-After"] == "" || ae.Details["retry_after"] == nil) {
				t.Fatalf("a 503 without Retry-After: %+v", ae)
			}
		})
	}
}

// Unreadable text is answered with where it was, and the name of what held
// it when that name is readable.
func TestInvalidTextAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *readable.Error
		want map[string]any
	}{
		{&readable.Error{In: "path"}, map[string]any{"in": "path"}},
		{&readable.Error{In: "query", Key: "param", Name: "city"}, map[string]any{"in": "query", "param": "city"}},
		{&readable.Error{In: "header", Key: "header", Name: "Idempotency-Key"}, map[string]any{"in": "header", "header": "Idempotency-Key"}},
	} {
		ae, _ := For(fmt.Errorf("read: %w", tc.err))
		if ae.Code != "invalid_text" || fmt.Sprint(ae.Details) != fmt.Sprint(tc.want) {
			t.Errorf("%v: %s %v, want invalid_text %v", tc.err, ae.Code, ae.Details, tc.want)
		}
	}
}

// TestBodyTooLargeSaysTheLimit: a body refused by a route's own cap (a
// poster form's) says that cap, not the 64 KiB of other routes.
func TestBodyTooLargeSaysTheLimit(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  string
	}{
		{64 << 20, "The request body is larger than 64 MiB."},
		{64 << 10, "The request body is larger than 64 KiB."},
	} {
		e, _ := For(fmt.Errorf("read the form: %w", &http.MaxBytesError{Limit: tc.limit}))
		if e.Status != http.StatusRequestEntityTooLarge || e.Code != "body_too_large" || e.Message != tc.want {
			t.Errorf("a body over %d bytes: %d %s %q, want 413 body_too_large %q", tc.limit, e.Status, e.Code, e.Message, tc.want)
		}
	}
}
