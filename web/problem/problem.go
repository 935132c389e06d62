// Package problem is the one table from errors to answers: every error a
// handler, a middleware or Echo returns becomes an Error, with a status, a
// stable code for programs and a message for a person. The use cases'
// errors are named here once, so the API, the pages and the admin area
// answer each the same way.
package problem

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/internal/admin"
	"github.com/marquee-tickets/marquee/internal/auth"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/internal/boxoffice"
	"github.com/marquee-tickets/marquee/internal/catalog"
	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/internal/postgres"
	"github.com/marquee-tickets/marquee/internal/waitroom"
	"github.com/marquee-tickets/marquee/web/admission"
	"github.com/marquee-tickets/marquee/web/readable"
	"github.com/marquee-tickets/marquee/web/session"
)

// Error is an answer that is not a success: a status, a stable code for
// programs, a message for a person, and details such as the seats at fault.
// Every error a handler or middleware returns becomes one (see For).
type Error struct {
	Status  int
	Code    string
	Message string
	Details map[string]any
	Header  map[string]string // extra response headers, e.g. Retry-After
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Body is e as a JSON answer says it: its details, "error" (the code) and
// "message".
func (e *Error) Body() map[string]any {
	body := make(map[string]any, len(e.Details)+3)
	for k, v := range e.Details {
		body[k] = v
	}
	body["error"] = e.Code
	body["message"] = e.Message
	return body
}

func New(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// With returns e With one more detail field.
func (e *Error) With(key string, value any) *Error {
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
	ErrUnauthenticated = New(http.StatusUnauthorized, "unauthenticated", "Sign in to do this.")
	errBadCredentials  = New(http.StatusUnauthorized, "bad_credentials", "Wrong email or password.")
	errInternal        = New(http.StatusInternalServerError, "internal", "Something went wrong on our side. Please try again.")
	errTimeout         = Retrying(New(http.StatusServiceUnavailable, "timeout", "The server took too long to answer. Please try again."), UnavailableRetryAfter)
)

// NotFound is a 404 for an object of kind what ("hold", "booking", "show").
// Another user's hold or booking is answered exactly like one that does not
// exist.
func NotFound(what string) *Error {
	return New(http.StatusNotFound, "not_found", fmt.Sprintf("There is no %s with this id.", what))
}

// BadQuery is a 400 for query parameter param.
func BadQuery(param, message string) error {
	return New(http.StatusBadRequest, "invalid_query", message).With("param", param)
}

// Lookup turns booking.ErrNotFound into a 404 naming what was looked up;
// other errors pass through to For.
func Lookup(what string, err error) error {
	if errors.Is(err, booking.ErrNotFound) {
		return NotFound(what)
	}
	return err
}

// For is the one table from errors to answers. Anything it does not
// know is an internal error: logged, and answered without its text.
func For(err error) (ae *Error, internal bool) {
	var (
		seatsTaken  *booking.SeatsUnavailableError
		priceDiffer *booking.PriceDiffersError
		unknown     *booking.UnknownSeatsError
		duplicate   *booking.DuplicateSeatsError
		tooMany     *booking.TooManySeatsError
		invalidSeat *booking.InvalidSeatError
		activeHold  *booking.ActiveHoldError
		heldCap     *booking.HeldSeatsCapError
		orphan      *booking.OrphanSeatError
		mismatch    *booking.AmountMismatchError
		badPayment  *booking.InvalidPaymentError
		notActive   *boxoffice.HoldNotActiveError
		paid        *boxoffice.AlreadyPaidError
		invalid     *auth.FieldError
		badField    *catalog.FieldError
		overlap     *catalog.ShowOverlapError
		runtime     *catalog.RuntimeOverlapError
		hasShows    *catalog.ScreenHasShowsError
		noPrice     *catalog.MissingPricesError
		inUse       *catalog.LayoutInUseError
		unreadable  *readable.Error
		httpErr     *echo.HTTPError
		maxBytes    *http.MaxBytesError
		panicked    *PanicError
	)
	switch {
	case errors.As(err, &panicked):
		// Whatever a panic carried, it is a bug of ours.
		return errInternal, true
	case errors.As(err, &ae):
		return ae, false
	case errors.Is(err, admission.ErrBusy):
		return Busy(), false

	// Holds.
	case errors.As(err, &seatsTaken):
		return New(http.StatusConflict, "seats_unavailable",
			"Some of these seats are no longer available. Pick other seats.").With("seats", NonNil(seatsTaken.Seats)), false
	case errors.Is(err, booking.ErrSaleLapsed):
		return New(http.StatusConflict, "sale_lapsed",
			"The seats were let go before the sale was finished: nothing was sold. Sell them again."), false
	case errors.As(err, &activeHold):
		return New(http.StatusConflict, "active_hold_exists",
			"You are already holding seats. Pay for them or release them first.").With("hold_id", activeHold.HoldID), false
	case errors.As(err, &heldCap):
		return errTooManyHeldSeats(heldCap), false
	case errors.As(err, &orphan):
		own := " empty on its own. "
		if len(orphan.Seats) > 1 {
			own = " empty, each on its own. "
		}
		return New(http.StatusConflict, "orphan_seat",
			"Holding these seats would leave "+strings.Join(orphan.Seats, ", ")+own+
				"Hold "+strings.Join(orphan.Suggestion, ", ")+" instead, or pick other seats.").
			With("seats", NonNil(orphan.Seats)).With("suggestion", NonNil(orphan.Suggestion)), false
	case errors.As(err, &unknown):
		return New(http.StatusUnprocessableEntity, "unknown_seats",
			"This show has no seats with these ids.").With("seats", NonNil(unknown.Seats)), false
	case errors.As(err, &duplicate):
		return New(http.StatusUnprocessableEntity, "duplicate_seats",
			"Each seat may be asked for only once.").With("seats", NonNil(duplicate.Seats)), false
	case errors.As(err, &tooMany):
		return New(http.StatusUnprocessableEntity, "too_many_seats",
			fmt.Sprintf("You can hold at most %d seats at a time.", tooMany.Max)).
			With("max", tooMany.Max).With("asked", tooMany.Asked), false
	case errors.As(err, &invalidSeat):
		return New(http.StatusUnprocessableEntity, "invalid_seat",
			"Seat ids are 1 to 16 letters, digits or dashes.").With("seat", invalidSeat.Seat), false
	case errors.Is(err, waitroom.ErrQueueRequired):
		return New(http.StatusForbidden, "queue_required",
			"This show has a waiting room. Join its queue: you can choose seats once you are let in."), false
	case errors.Is(err, waitroom.ErrInvalidSettings):
		return New(http.StatusUnprocessableEntity, "invalid_waiting_room",
			"Admit 1 to 100000 people a minute, with 1 to 100000 shopping at once."), false
	case errors.Is(err, booking.ErrNotEnoughSeats):
		return New(http.StatusConflict, "not_enough_seats",
			"Fewer seats of that kind are free than you asked for. Ask for fewer, or another kind."), false
	case errors.Is(err, booking.ErrInvalidParty):
		return New(http.StatusUnprocessableEntity, "invalid_best_available",
			"Ask for 1 or more seats, with at most as many wheelchair spaces, of a category like PREMIUM."), false
	case errors.Is(err, booking.ErrNoSeats):
		return New(http.StatusUnprocessableEntity, "no_seats", "Pick at least one seat."), false
	case errors.Is(err, booking.ErrKeyReused):
		return New(http.StatusUnprocessableEntity, "idempotency_key_reused",
			"This Idempotency-Key was already used for a different request. Use a new key for a new request."), false
	case errors.Is(err, booking.ErrShowClosed):
		return New(http.StatusConflict, "show_closed", "This show is no longer on sale."), false
	case errors.Is(err, booking.ErrHoldConfirmed):
		return New(http.StatusConflict, "hold_confirmed",
			"These seats are already paid for. Cancel the booking instead."), false

	// Payments and bookings.
	case errors.As(err, &notActive):
		return New(http.StatusConflict, "hold_not_active",
			"This hold is no longer active: pick your seats again.").With("state", string(notActive.State)), false
	case errors.As(err, &paid):
		var bookingID any // null when the payment booked nothing and is being refunded
		if paid.BookingID != "" {
			bookingID = paid.BookingID
		}
		return New(http.StatusConflict, "already_paid",
			"These seats are already paid for: see your ticket.").With("booking_id", bookingID), false
	case errors.Is(err, boxoffice.ErrProviderUnavailable):
		return Retrying(New(http.StatusServiceUnavailable, "payment_provider_unavailable",
			"We could not reach the payment provider. Your seats are still held: please try again in a moment."), UnavailableRetryAfter), false
	case errors.As(err, &mismatch):
		return New(http.StatusUnprocessableEntity, "amount_mismatch",
			"The payment does not match the amount or currency of its hold; it was recorded and will be refunded.").
			With("payment_id", mismatch.Confirmation.PaymentID).
			With("hold_id", mismatch.Confirmation.HoldID).
			With("outcome", string(mismatch.Confirmation.Outcome)), false
	case errors.As(err, &badPayment):
		// A provider's malformed report: refused before anything is recorded.
		return New(http.StatusBadRequest, "invalid_payment", badPayment.Message).With("field", badPayment.Field), false
	case errors.Is(err, booking.ErrPaymentConflict):
		return New(http.StatusConflict, "payment_conflict",
			"This payment id was already reported with another hold, amount or currency."), false
	case errors.Is(err, booking.ErrNoTicket):
		return New(http.StatusConflict, "no_ticket", "This booking is cancelled: it has no ticket to send."), false
	case errors.As(err, &priceDiffer):
		return New(http.StatusConflict, "price_differs",
			"These seats cost a different amount from what the booking paid. Pick seats of the same price, or refund the booking and sell the new seats.").
			With("paid_minor", priceDiffer.Paid).With("asked_minor", priceDiffer.Asked).With("currency", priceDiffer.Currency), false
	case errors.Is(err, booking.ErrSameShow):
		return New(http.StatusUnprocessableEntity, "same_show", "The booking is already for this show. Pick another show."), false
	case errors.Is(err, booking.ErrOtherMovie):
		return New(http.StatusUnprocessableEntity, "other_movie", "A booking moves only to another show of the same movie."), false
	case errors.Is(err, booking.ErrAdmitted):
		return New(http.StatusConflict, "booking_admitted", "This booking was already admitted at the door, so it cannot move."), false
	case errors.Is(err, booking.ErrBookingChanged):
		return New(http.StatusConflict, "booking_changed", "The booking changed meanwhile. Open it again: nothing was moved."), false
	case errors.Is(err, booking.ErrNoCounterRefund):
		return New(http.StatusConflict, "no_counter_refund", "This booking owes no refund at the counter."), false
	case errors.Is(err, booking.ErrCancellationClosed):
		return New(http.StatusConflict, "cancellation_closed",
			"This booking can no longer be cancelled: the show starts too soon."), false
	case errors.Is(err, payment.ErrMissingSignature):
		return New(http.StatusBadRequest, "signature_missing", "The "+payment.SignatureHeader+" header is missing."), false
	case errors.Is(err, payment.ErrMalformedSignature):
		return New(http.StatusBadRequest, "signature_malformed", "The "+payment.SignatureHeader+" header cannot be read."), false
	case errors.Is(err, payment.ErrBadSignature):
		return New(http.StatusBadRequest, "signature_invalid", "The payment signature does not match."), false
	case errors.Is(err, payment.ErrStaleSignature):
		return New(http.StatusBadRequest, "signature_stale", "The payment signature is too old or from the future."), false

	// Accounts.
	case errors.Is(err, session.ErrSignedOut):
		return ErrUnauthenticated, false
	case errors.As(err, &invalid):
		// The code and field name the first problem; fields has them all.
		fields := map[string]string{}
		for _, p := range auth.Problems(err) {
			fields[p.Field] = Sentence(p.Message)
		}
		return New(http.StatusUnprocessableEntity, "invalid_"+invalid.Field, Sentence(invalid.Message)).
			With("field", invalid.Field).With("fields", fields), false
	case errors.Is(err, auth.ErrEmailTaken):
		return New(http.StatusConflict, "email_taken", "An account with this email already exists. Sign in instead."), false
	case errors.Is(err, auth.ErrBadCredentials):
		return errBadCredentials, false

	// Theatre admin.
	case errors.Is(err, admin.ErrForbidden):
		return New(http.StatusForbidden, "forbidden", "This is for theatre staff only."), false
	case errors.Is(err, admin.ErrPlatformOnly):
		return New(http.StatusForbidden, "forbidden", "Only a platform admin can do this."), false
	case errors.Is(err, admin.ErrRole):
		return New(http.StatusForbidden, "forbidden", "Your role at this theatre does not allow this. Ask one of its managers."), false
	case errors.As(err, &badField):
		// The code and field name the first problem; fields has them all.
		fields := map[string]string{}
		for _, p := range catalog.Problems(err) {
			fields[p.Field] = Sentence(p.Message)
		}
		return New(http.StatusUnprocessableEntity, "invalid_"+badField.Field, Sentence(badField.Message)).
			With("field", badField.Field).With("fields", fields), false
	case errors.As(err, &runtime):
		return runtimeOverlap(runtime), false
	case errors.Is(err, catalog.ErrScreenRetired):
		return New(http.StatusConflict, "screen_retired",
			"This screen is retired: it takes no new shows. Put it back in use on its page first, or pick another screen."), false
	case errors.As(err, &hasShows):
		return screenHasShows(hasShows), false
	case errors.Is(err, catalog.ErrMovieChanged):
		return New(http.StatusConflict, "movie_changed",
			"The movie's running time changed while the show was being scheduled. Try again: nothing was scheduled."), false
	case errors.As(err, &overlap):
		return New(http.StatusConflict, "show_overlap",
			"This screen already has a show at that time. Pick another time or screen.").
			With("conflicting_show_id", overlap.ConflictingShowID), false
	case errors.As(err, &noPrice) && len(noPrice.Shows) > 0:
		ids := make([]string, len(noPrice.Shows))
		for i, id := range noPrice.Shows {
			ids[i] = strconv.FormatInt(id, 10)
		}
		return New(http.StatusUnprocessableEntity, "missing_prices",
			"Upcoming shows of this screen ("+strings.Join(ids, ", ")+") have no price for "+strings.Join(noPrice.Categories, ", ")+
				": give one for every show in \"prices\", or per show in \"show_prices\". Nothing was changed.").
			With("categories", NonNil(noPrice.Categories)).With("shows", noPrice.Shows), false
	case errors.As(err, &noPrice):
		return New(http.StatusUnprocessableEntity, "missing_prices",
			"Every seat category of the screen needs a price: "+strings.Join(noPrice.Categories, ", ")+".").
			With("categories", NonNil(noPrice.Categories)), false
	case errors.As(err, &inUse):
		return New(http.StatusConflict, "layout_in_use",
			"This change would remove, move or re-categorize seats that are held or booked in upcoming shows: "+
				strings.Join(inUse.Seats, ", ")+".").
			With("seats", NonNil(inUse.Seats)).With("shows", inUse.Shows), false
	case errors.Is(err, admin.ErrPosterBusy):
		return Retrying(New(http.StatusServiceUnavailable, "poster_busy",
			"Other posters are being processed right now. Try again in a few seconds: nothing was changed."), UnavailableRetryAfter), false
	case errors.Is(err, catalog.ErrShowInPast):
		return New(http.StatusUnprocessableEntity, "show_in_past", "A show cannot start in the past."), false
	case errors.Is(err, catalog.ErrShowTooFarAhead):
		days := int(catalog.MaxScheduleAhead / (24 * time.Hour))
		return New(http.StatusUnprocessableEntity, "show_too_far_ahead",
			fmt.Sprintf("A show can start at most %d days (two years) from now. Pick an earlier date.", days)).
			With("max_days_ahead", days), false
	case errors.Is(err, catalog.ErrShowHasSales):
		return New(http.StatusConflict, "show_has_sales",
			"Seats of this show are already sold or held, so its prices cannot change."), false
	case errors.Is(err, catalog.ErrShowCancelled):
		return New(http.StatusConflict, "show_cancelled", "This show was cancelled."), false
	case errors.Is(err, catalog.ErrShowStarted):
		return New(http.StatusConflict, "show_started", "This show has already started, so it can no longer be moved."), false
	case errors.Is(err, catalog.ErrSameStart):
		return New(http.StatusUnprocessableEntity, "same_start",
			"The show already starts at that time: give the new start to move it to. Nothing was changed.").
			With("field", "starts_at"), false
	case errors.Is(err, catalog.ErrCityExists):
		return New(http.StatusConflict, "city_exists", "A city with this slug already exists. Pick another slug."), false
	case errors.Is(err, auth.ErrUnknownAccount):
		return New(http.StatusUnprocessableEntity, "unknown_account",
			"No account has this email. Ask the person to sign up first."), false

	// Scheduling.
	case errors.Is(err, catalog.ErrShowOverlap):
		return New(http.StatusConflict, "show_overlap", "This screen already has a show at that time. Pick another time or screen."), false

	case errors.Is(err, booking.ErrNotFound):
		return New(http.StatusNotFound, "not_found", "Not found."), false

	// A request's own text and body.
	case errors.As(err, &unreadable):
		ae := ErrInvalidText.With("in", unreadable.In)
		if unreadable.Name != "" {
			ae = ae.With(unreadable.Key, unreadable.Name)
		}
		return ae, false
	case errors.Is(err, readable.ErrUnreadableBody):
		return BodyError(err), false

	// Echo's own errors: routing, middleware.
	case errors.As(err, &maxBytes):
		return BodyTooLarge(maxBytes.Limit), false
	case errors.As(err, &httpErr):
		return echoError(httpErr)

	// The database is out of reach (postgres.Unavailable knows which
	// errors say so): come back in a few seconds. Logged, as ours.
	case errors.Is(postgres.Unavailable(err), postgres.ErrUnavailable):
		return ErrUnavailable, true

	case errors.Is(err, context.DeadlineExceeded):
		return errTimeout, true
	}
	return errInternal, true
}

// runtimeOverlap answers a movie's running time refused because its
// upcoming shows would run into the next show on their screens.
func runtimeOverlap(e *catalog.RuntimeOverlapError) *Error {
	shows := make([]map[string]any, len(e.Overlaps))
	ids := make([]string, len(e.Overlaps))
	for i, o := range e.Overlaps {
		shows[i] = map[string]any{"show_id": o.ShowID, "starts_at": o.StartsAt.UTC(), "ends_at": o.EndsAt.UTC(),
			"conflicting_show_id": o.ConflictingShowID, "conflicting_starts_at": o.ConflictingStarts.UTC()}
		ids[i] = fmt.Sprintf("show %d would run into show %d", o.ShowID, o.ConflictingShowID)
	}
	return New(http.StatusConflict, "runtime_overlap",
		fmt.Sprintf("With a running time of %d minutes, upcoming shows of this movie would overlap the next show on their screen: %s. "+
			"Move or cancel those shows first, or keep the running time. Nothing was changed.",
			e.DurationMinutes, strings.Join(ids, "; "))).
		With("shows", shows).With("duration_minutes", e.DurationMinutes)
}

// screenHasShows answers a screen that cannot be retired while shows of
// it are still to start.
func screenHasShows(e *catalog.ScreenHasShowsError) *Error {
	shows := make([]map[string]any, len(e.Shows))
	ids := make([]string, len(e.Shows))
	for i, sh := range e.Shows {
		shows[i] = map[string]any{"show_id": sh.ID, "starts_at": sh.StartsAt.UTC(), "movie_title": sh.MovieTitle}
		ids[i] = strconv.FormatInt(sh.ID, 10)
	}
	noun := "shows"
	if len(e.Shows) == 1 {
		noun = "show"
	}
	return New(http.StatusConflict, "screen_has_shows",
		fmt.Sprintf("This screen has %d upcoming %s on sale (%s): cancel them, or wait until they are over, before retiring it. Nothing was changed.",
			len(e.Shows), noun, strings.Join(ids, ", "))).
		With("shows", shows).With("count", len(e.Shows))
}

// UnavailableRetryAfter is the Retry-After, in seconds, of an answer that
// failed because the database was out of reach: about what a restart of
// Postgres takes.
const UnavailableRetryAfter = 3

// ErrUnavailable answers a request that failed because the database was
// out of reach.
var ErrUnavailable = Retrying(New(http.StatusServiceUnavailable, "unavailable",
	"We can't reach our ticket system right now. Nothing you did was lost: try again in a few seconds."), UnavailableRetryAfter)

// Retrying is e with a Retry-After of seconds, in its header and its body:
// what every 503 says, the failure being ours and passing.
func Retrying(e *Error, seconds int) *Error {
	e = e.With("retry_after", seconds)
	e.Header = map[string]string{"Retry-After": strconv.Itoa(seconds)}
	return e
}

// ErrBodyTooLarge refuses a body over the limit of BodyLimit.
var ErrBodyTooLarge = New(http.StatusRequestEntityTooLarge, "body_too_large", "The request body is larger than 64 KiB.")

// BodyTooLarge refuses a body over limit bytes, a route's own cap
// (http.MaxBytesReader's), saying which.
func BodyTooLarge(limit int64) *Error {
	size := strconv.FormatInt(limit>>10, 10) + " KiB"
	if limit >= 1<<20 && limit%(1<<20) == 0 {
		size = strconv.FormatInt(limit>>20, 10) + " MiB"
	}
	return New(http.StatusRequestEntityTooLarge, "body_too_large", "The request body is larger than "+size+".")
}

// echoError answers an error raised by Echo's router or middleware.
func echoError(he *echo.HTTPError) (*Error, bool) {
	// A message of the handler's own, rather than Echo's status text, is
	// for a person (Sandbox Pay's pages say so what went wrong).
	own, _ := he.Message.(string)
	if own == http.StatusText(he.Code) {
		own = ""
	}
	switch he.Code {
	case http.StatusNotFound:
		return New(http.StatusNotFound, "not_found", cmp.Or(own, "There is nothing at this address.")), false
	case http.StatusMethodNotAllowed:
		return New(http.StatusMethodNotAllowed, "method_not_allowed", "This address does not accept this method."), false
	case http.StatusRequestEntityTooLarge:
		return ErrBodyTooLarge, false
	case http.StatusUnsupportedMediaType:
		return ErrNotJSON, false
	case http.StatusTooManyRequests:
		return RateLimited(0), false
	case http.StatusBadRequest:
		return New(http.StatusBadRequest, "bad_request", "The request is malformed."), false
	}
	if he.Code >= 400 && he.Code < 500 {
		return New(he.Code, strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_"),
			cmp.Or(own, Sentence(http.StatusText(he.Code)))), false
	}
	if he.Code == http.StatusServiceUnavailable {
		return errTimeout, true
	}
	return errInternal, true
}

// RateLimited is a 429; retryAfter > 0 says when to come back.
func RateLimited(retryAfterSeconds int) *Error {
	e := New(http.StatusTooManyRequests, "rate_limited", "Too many requests. Slow down and try again shortly.")
	if retryAfterSeconds > 0 {
		e = e.With("retry_after", retryAfterSeconds)
		e.Header = map[string]string{"Retry-After": strconv.Itoa(retryAfterSeconds)}
	}
	return e
}

// errTooManyHeldSeats is a hold refused because the caller's address holds
// as many seats as it may: a 429, with Retry-After when the soonest of
// those holds lapses (paying for or releasing one frees seats sooner).
func errTooManyHeldSeats(e *booking.HeldSeatsCapError) *Error {
	scope := "all_shows"
	if e.PerShow {
		scope = "show"
	}
	ae := New(http.StatusTooManyRequests, "too_many_held_seats",
		"You're holding as many seats as we allow from one connection. "+
			"Pay for or release seats you hold, or wait until they're released.").
		With("max", e.Max).With("scope", scope)
	if !e.FreesAt.IsZero() {
		wait := max(1, int(math.Ceil(time.Until(e.FreesAt).Seconds())))
		ae = ae.With("retry_after", wait)
		ae.Header = map[string]string{"Retry-After": strconv.Itoa(wait)}
	}
	return ae
}

// PanicError is a recovered panic, with its stack for the log.
type PanicError struct {
	Err   error
	Stack []byte
}

func (e *PanicError) Error() string { return "panic: " + e.Err.Error() }
func (e *PanicError) Unwrap() error { return e.Err }

// Sentence capitalizes msg and ends it with a full stop.
func Sentence(msg string) string {
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// NonNil keeps a list a list in JSON ([] rather than null).
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// BusyCode is the code of a request turned away by admission control.
const BusyCode = "busy"

// Retry-After of a busy answer: 2 to 5 seconds, at random, so that a crowd
// turned away together does not come back together.
const (
	busyRetryMin    = 2
	busyRetrySpread = 4
)

// Busy answers a request turned away at the door (admission.ErrBusy), with
// its own Retry-After. It never reached the route's middleware, so it says
// no-store itself: no cache may answer the retry with it.
func Busy() *Error {
	e := Retrying(New(http.StatusServiceUnavailable, BusyCode,
		"Marquee is very busy right now. Try again in a few seconds."), busyRetryMin+rand.IntN(busyRetrySpread))
	e.Header[echo.HeaderCacheControl] = "no-store"
	return e
}

// Errors of a request's body.
var (
	ErrNotJSON = New(http.StatusUnsupportedMediaType, "unsupported_media_type",
		"Send the request body as JSON, with Content-Type: application/json.")
	// ErrInvalidText refuses a request with unreadable text (see package
	// readable); its detail in says where (path, query, form, body or
	// header).
	ErrInvalidText = New(http.StatusBadRequest, "invalid_text",
		"This request contains characters we can't read. Check what you typed, or the link you followed, and try again.")
)

// BodyError answers a body that could not be read: the body limit's
// refusal as 413, anything else (a body cut short) as 400.
func BodyError(err error) *Error {
	var he *echo.HTTPError
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return BodyTooLarge(mb.Limit)
	}
	if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
		return ErrBodyTooLarge
	}
	return New(http.StatusBadRequest, "unreadable_body", "The request body could not be read.")
}
