package booking

import (
	"errors"
	"time"
)

// The payments to check: a payment whose story is unfinished (a refund
// that keeps failing, a charge of another amount than its hold's, a
// checkout the provider never settled) waits in a queue until an admin
// retries or resolves it.

// The kinds of payments to check.
const (
	// ReconcileRefundFailed is a refund the worker has failed to pay back
	// many times over.
	ReconcileRefundFailed = "refund_failed"
	// ReconcileAmountMismatch is a charge of another amount than its hold's.
	ReconcileAmountMismatch = "amount_mismatch"
	// ReconcileUnsettledCheck is a checkout whose outcome the provider has
	// still not told, long after its hold's deadline.
	ReconcileUnsettledCheck = "unsettled_check"
)

// ReconcileItem is one payment whose story is unfinished.
type ReconcileItem struct {
	Kind        string // one of the Reconcile* kinds
	PaymentID   string // "" for an unsettled check
	HoldID      string // "" for a payment of no known hold
	ShowID      int64  // 0 when the hold is unknown
	TheatreID   int64
	TheatreName string
	TimeZone    string // the theatre's; UTC when the hold is unknown
	MovieTitle  string
	StartsAt    time.Time // the show's; zero when unknown
	AmountMinor int64     // the charge; for a check, its hold's amount
	Currency    string
	Since       time.Time // when the payment came, or the checkout opened
	// The account that paid (for a check, that holds), where known: a
	// payment of no known hold has none.
	CustomerName  string
	CustomerEmail string
	// The refund, for a payment that has one: what it gives back (a
	// cancelled booking's may be part of the charge), and where it stands.
	RefundMinor    int64
	RefundStatus   string
	RefundAttempts int
	LastError      string // the refund's or the check's last error
	Checks         int    // questions asked of the provider (a check)
}

// Key is how a resolution names the item.
func (it ReconcileItem) Key() string {
	if it.Kind == ReconcileUnsettledCheck {
		return "check:" + it.HoldID
	}
	return "payment:" + it.PaymentID
}

// ReconcileQuery narrows the queue.
type ReconcileQuery struct {
	// Theatres are the theatres whose shows' payments are listed; nil is
	// every payment, those of no known show too (a platform admin).
	Theatres []int64
	All      bool
	// RefundAttempts is how many failed attempts make a refund stuck.
	RefundAttempts int
	// CheckGrace is how long after its hold's deadline a check should
	// have settled.
	CheckGrace time.Duration
}

// ErrNothingToRetry is a retry of a payment whose refund is not failing (or
// of a check no longer open).
var ErrNothingToRetry = errors.New("nothing to retry")

// RefundRetry is a failed refund made due again: what it was.
type RefundRetry struct {
	RefundID  string `json:"refund_id"`
	Attempts  int    `json:"attempts"`
	LastError string `json:"last_error,omitempty"`
}
