package jobs

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// PaymentCheck asks the payment provider how paying for hold HoldID went,
// while a payment of it may still come (reconcile.Worker does it), since
// a webhook can be lost. The store inserts it with the hold's checkout;
// it comes back by snoozing, on the reconciliation's schedule, until its
// last look after the hold's deadline.
type PaymentCheck struct {
	HoldID string `json:"hold_id"`
}

func (PaymentCheck) Kind() string { return "payment_check" }

// PaymentCheckAttempts is how many failed checks (the provider unreachable,
// or a report that cannot be recorded) a hold's check job takes before it
// is left for a person: 100 minutes at the worker's longest wait by
// default, after which the admin's reconciliation queue lists it, to retry
// or resolve. Checks that succeed snooze, and do not count.
const PaymentCheckAttempts = 100

// DefaultPaymentCheckDelay is how long after a checkout opens the provider
// is first asked about it, unless configured (RECONCILE_DELAY): time for
// the webhook to arrive by itself.
const DefaultPaymentCheckDelay = 10 * time.Second

// The keys of what a payment check job records of itself in its metadata:
// how many times the provider was asked (the next wait doubles with it),
// and why the latest question failed (null once one succeeds), which the
// admin's reconciliation queue shows.
const (
	PaymentCheckChecks    = "checks"
	PaymentCheckLastError = "last_error"
)

// InsertOpts: one live check per hold, however many checkouts it has, so a
// second checkout leaves the first's check as it is. Once finished, a
// check may be inserted again.
func (PaymentCheck) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue:       QueuePayments,
		MaxAttempts: PaymentCheckAttempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled,
		}},
	}
}
