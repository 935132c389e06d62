package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/payment"
)

// apiError is an answer that is not a success: a status, a stable code for
// programs, a message for a person, and details such as the seats at fault.
// Every error a handler or middleware returns becomes one (see errorFor).
type apiError struct {
	Status  int
	Code    string
	Message string
	Details map[string]any
	Header  map[string]string // extra response headers, e.g. Retry-After
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func newError(status int, code, message string) *apiError {
	return &apiError{Status: status, Code: code, Message: message}
}

// with returns e with one more detail field.
func (e *apiError) with(key string, value any) *apiError {
	d := make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		d[k] = v
	}
	d[key] = value
	cp := *e
	cp.Details = d
	return &cp
}

// Errors raised by the web layer itself.
var (
	errUnauthenticated = newError(http.StatusUnauthorized, "unauthenticated", "Sign in to do this.")
	errBadCredentials  = newError(http.StatusUnauthorized, "bad_credentials", "Wrong email or password.")
	errInternal        = newError(http.StatusInternalServerError, "internal", "Something went wrong on our side. Please try again.")
	errTimeout         = newError(http.StatusServiceUnavailable, "timeout", "The server took too long to answer. Please try again.")
	errNotReady        = newError(http.StatusServiceUnavailable, "not_ready", "The service is not ready.")
)

// notFound is a 404 for an object of kind what ("hold", "booking", "show").
// Another user's hold or booking is answered exactly like one that does not
// exist.
func notFound(what string) *apiError {
	return newError(http.StatusNotFound, "not_found", fmt.Sprintf("There is no %s with this id.", what))
}

// lookup turns booking.ErrNotFound into a 404 naming what was looked up;
// other errors pass through to errorFor.
func lookup(what string, err error) error {
	if errors.Is(err, booking.ErrNotFound) {
		return notFound(what)
	}
	return err
}

// errorFor is the one table from errors to answers. Anything it does not
// know is an internal error: logged, and answered without its text.
func errorFor(err error) (ae *apiError, internal bool) {
	var (
		seatsTaken  *booking.SeatsUnavailableError
		unknown     *booking.UnknownSeatsError
		duplicate   *booking.DuplicateSeatsError
		tooMany     *booking.TooManySeatsError
		invalidSeat *booking.InvalidSeatError
		activeHold  *booking.ActiveHoldError
		mismatch    *booking.AmountMismatchError
		notActive   *boxoffice.HoldNotActiveError
		invalid     *auth.ErrInvalid
		httpErr     *echo.HTTPError
		maxBytes    *http.MaxBytesError
		panicked    *panicError
	)
	switch {
	case errors.As(err, &panicked):
		// Whatever a panic carried, it is a bug of ours.
		return errInternal, true
	case errors.As(err, &ae):
		return ae, false

	// Holds.
	case errors.As(err, &seatsTaken):
		return newError(http.StatusConflict, "seats_unavailable",
			"Some of these seats are no longer available. Pick other seats.").with("seats", nonNil(seatsTaken.Seats)), false
	case errors.As(err, &activeHold):
		return newError(http.StatusConflict, "active_hold_exists",
			"You are already holding seats. Pay for them or release them first.").with("hold_id", activeHold.HoldID), false
	case errors.As(err, &unknown):
		return newError(http.StatusUnprocessableEntity, "unknown_seats",
			"This show has no seats with these ids.").with("seats", nonNil(unknown.Seats)), false
	case errors.As(err, &duplicate):
		return newError(http.StatusUnprocessableEntity, "duplicate_seats",
			"Each seat may be asked for only once.").with("seats", nonNil(duplicate.Seats)), false
	case errors.As(err, &tooMany):
		return newError(http.StatusUnprocessableEntity, "too_many_seats",
			fmt.Sprintf("You can hold at most %d seats at a time.", tooMany.Max)).
			with("max", tooMany.Max).with("asked", tooMany.Asked), false
	case errors.As(err, &invalidSeat):
		return newError(http.StatusUnprocessableEntity, "invalid_seat",
			"Seat ids are 1 to 16 letters, digits or dashes.").with("seat", invalidSeat.Seat), false
	case errors.Is(err, booking.ErrNoSeats):
		return newError(http.StatusUnprocessableEntity, "no_seats", "Pick at least one seat."), false
	case errors.Is(err, booking.ErrKeyReused):
		return newError(http.StatusUnprocessableEntity, "idempotency_key_reused",
			"This Idempotency-Key was already used for a different request. Use a new key for a new request."), false
	case errors.Is(err, booking.ErrShowClosed):
		return newError(http.StatusConflict, "show_closed", "This show is no longer on sale."), false
	case errors.Is(err, booking.ErrHoldConfirmed):
		return newError(http.StatusConflict, "hold_confirmed",
			"These seats are already paid for. Cancel the booking instead."), false

	// Payments and bookings.
	case errors.As(err, &notActive):
		return newError(http.StatusConflict, "hold_not_active",
			"This hold is no longer active: pick your seats again.").with("state", string(notActive.State)), false
	case errors.Is(err, boxoffice.ErrProviderUnavailable):
		return newError(http.StatusServiceUnavailable, "payment_provider_unavailable",
			"We could not reach the payment provider. Your seats are still held: please try again in a moment."), false
	case errors.As(err, &mismatch):
		return newError(http.StatusUnprocessableEntity, "amount_mismatch",
			"The payment does not match the amount or currency of its hold; it was recorded and will be refunded.").
			with("payment_id", mismatch.Confirmation.PaymentID).
			with("hold_id", mismatch.Confirmation.HoldID).
			with("outcome", string(mismatch.Confirmation.Outcome)), false
	case errors.Is(err, booking.ErrPaymentConflict):
		return newError(http.StatusConflict, "payment_conflict",
			"This payment id was already reported with another hold, amount or currency."), false
	case errors.Is(err, booking.ErrCancellationClosed):
		return newError(http.StatusConflict, "cancellation_closed",
			"This booking can no longer be cancelled: the show starts too soon."), false
	case errors.Is(err, payment.ErrMissingSignature):
		return newError(http.StatusBadRequest, "signature_missing", "The "+payment.SignatureHeader+" header is missing."), false
	case errors.Is(err, payment.ErrMalformedSignature):
		return newError(http.StatusBadRequest, "signature_malformed", "The "+payment.SignatureHeader+" header cannot be read."), false
	case errors.Is(err, payment.ErrBadSignature):
		return newError(http.StatusBadRequest, "signature_invalid", "The payment signature does not match."), false
	case errors.Is(err, payment.ErrStaleSignature):
		return newError(http.StatusBadRequest, "signature_stale", "The payment signature is too old or from the future."), false

	// Accounts.
	case errors.As(err, &invalid):
		// The code and field name the first problem; fields has them all.
		fields := map[string]string{}
		for _, p := range auth.Problems(err) {
			fields[p.Field] = sentence(p.Message)
		}
		return newError(http.StatusUnprocessableEntity, "invalid_"+invalid.Field, sentence(invalid.Message)).
			with("field", invalid.Field).with("fields", fields), false
	case errors.Is(err, booking.ErrEmailTaken):
		return newError(http.StatusConflict, "email_taken", "An account with this email already exists. Sign in instead."), false
	case errors.Is(err, booking.ErrBadCredentials):
		return errBadCredentials, false

	case errors.Is(err, booking.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "Not found."), false

	// Echo's own errors: routing, middleware.
	case errors.As(err, &maxBytes):
		return errBodyTooLarge, false
	case errors.As(err, &httpErr):
		return echoError(httpErr)

	case errors.Is(err, context.DeadlineExceeded):
		return errTimeout, true
	}
	return errInternal, true
}

var errBodyTooLarge = newError(http.StatusRequestEntityTooLarge, "body_too_large", "The request body is larger than 64 KiB.")

// echoError answers an error raised by Echo's router or middleware.
func echoError(he *echo.HTTPError) (*apiError, bool) {
	// A message of the handler's own, rather than Echo's status text, is
	// for a person (Sandbox Pay's pages say so what went wrong).
	own, _ := he.Message.(string)
	if own == http.StatusText(he.Code) {
		own = ""
	}
	switch he.Code {
	case http.StatusNotFound:
		return newError(http.StatusNotFound, "not_found", cmp.Or(own, "There is nothing at this address.")), false
	case http.StatusMethodNotAllowed:
		return newError(http.StatusMethodNotAllowed, "method_not_allowed", "This address does not accept this method."), false
	case http.StatusRequestEntityTooLarge:
		return errBodyTooLarge, false
	case http.StatusUnsupportedMediaType:
		return errNotJSON, false
	case http.StatusTooManyRequests:
		return errRateLimited(0), false
	case http.StatusBadRequest:
		return newError(http.StatusBadRequest, "bad_request", "The request is malformed."), false
	}
	if he.Code >= 400 && he.Code < 500 {
		return newError(he.Code, strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_"),
			cmp.Or(own, sentence(http.StatusText(he.Code)))), false
	}
	if he.Code == http.StatusServiceUnavailable {
		return errTimeout, true
	}
	return errInternal, true
}

// errRateLimited is a 429; retryAfter > 0 says when to come back.
func errRateLimited(retryAfterSeconds int) *apiError {
	e := newError(http.StatusTooManyRequests, "rate_limited", "Too many requests. Slow down and try again shortly.")
	if retryAfterSeconds > 0 {
		e = e.with("retry_after", retryAfterSeconds)
		e.Header = map[string]string{"Retry-After": strconv.Itoa(retryAfterSeconds)}
	}
	return e
}

// handleError is Echo's error handler: every error, from a handler, a
// middleware or the router, is answered as JSON, or for pages as a friendly
// page or htmx fragment (see wantsHTML). Internal errors are logged
// with the request; their text never reaches the client.
func (s *server) handleError(err error, c echo.Context) {
	ae, internal := errorFor(err)
	req := c.Request()
	if internal {
		switch {
		case errors.Is(err, context.Canceled) && req.Context().Err() != nil:
			// The client went away; nobody reads the answer.
			s.log.Debug("request cancelled", "method", req.Method, "path", req.URL.Path, "err", err)
		default:
			attrs := []any{"method", req.Method, "path", req.URL.Path, "status", ae.Status, "err", err}
			var pe *panicError
			if errors.As(err, &pe) {
				attrs = append(attrs, "stack", string(pe.stack))
			}
			s.log.Error("request failed", attrs...)
		}
	}
	if c.Response().Committed {
		return
	}
	h := c.Response().Header()
	for k, v := range ae.Header {
		h.Set(k, v)
	}
	if req.Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	if wantsHTML(c) {
		if err := s.renderProblem(c, ae); err != nil {
			s.log.Warn("write error page", "err", err)
		}
		return
	}
	body := make(map[string]any, len(ae.Details)+2)
	for k, v := range ae.Details {
		body[k] = v
	}
	body["error"] = ae.Code
	body["message"] = ae.Message
	if err := c.JSON(ae.Status, body); err != nil {
		s.log.Debug("write error answer", "err", err)
	}
}

// panicError is a recovered panic, with its stack for the log.
type panicError struct {
	err   error
	stack []byte
}

func (e *panicError) Error() string { return "panic: " + e.err.Error() }
func (e *panicError) Unwrap() error { return e.err }

// sentence capitalizes msg and ends it with a full stop.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// nonNil keeps a list a list in JSON ([] rather than null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
