package problem

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/marquee-tickets/marquee/web/admission"
)

// A request turned away at the door is answered 503 busy, with a
// Retry-After of its own from 2 to 5 s, in its header and its body, that no
// cache keeps.
func TestBusyAnswer(t *testing.T) {
	for range 50 {
		ae, internal := For(admission.ErrBusy)
		if internal || ae.Status != http.StatusServiceUnavailable || ae.Code != BusyCode {
			t.Fatalf("answer %v (internal %v), want 503 busy", ae, internal)
		}
		after, _ := strconv.Atoi(ae.Header["Retry-After"])
		if after < busyRetryMin || after >= busyRetryMin+busyRetrySpread || ae.Details["retry_after"] != after {
			t.Fatalf("Retry-After %q, retry_after %v: want the same, from %d to %d s", ae.Header["Retry-After"],
				ae.Details["retry_after"], busyRetryMin, busyRetryMin+busyRetrySpread-1)
		}
		if cc := ae.Header["Cache-Control"]; cc != "no-store" {
			t.Fatalf("Cache-Control %q, want no-store", cc)
		}
	}
}
