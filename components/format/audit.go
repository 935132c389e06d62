package format

import "strings"

// auditActions are the audit log's action codes as a person reads them:
// what the admin did. Every code the use cases write has its words here
// (TestAuditActionWords checks it).
var auditActions = map[string]string{
	"booking.counter_refund": "Recorded refund paid at the counter",
	"booking.move":           "Moved booking to another show",
	"booking.refund":         "Refunded booking",
	"booking.resend_ticket":  "Resent ticket e-mail",
	"city.create":            "Added city",
	"movie.create":           "Added movie",
	"movie.update":           "Changed movie",
	"movie.set_poster":       "Set movie poster",
	"payment.resolve":        "Resolved payment to check",
	"payment_check.retry":    "Retried payment check",
	"refund.retry":           "Retried refund",
	"screen.create":          "Added screen",
	"screen.update":          "Changed screen",
	"screen.replace_layout":  "Changed seat layout",
	"show.block_seats":       "Blocked seats",
	"show.cancel":            "Cancelled show",
	"show.create":            "Scheduled show",
	"show.reschedule":        "Rescheduled show",
	"show.schedule":          "Scheduled shows",
	"show.set_prices":        "Changed show prices",
	"show.unblock_seats":     "Unblocked seats",
	"show.waiting_room":      "Changed waiting room",
	"theatre.create":         "Added theatre",
	"theatre.update":         "Changed theatre settings",
	"theatre_admin.grant":    "Granted theatre admin",
	"theatre_admin.revoke":   "Revoked theatre admin",
}

// AuditAction is an audit log action code in words: show.cancel ->
// "Cancelled show". A code without words of its own (one written by a
// later version) is spelt out: show.new_thing -> "Show: new thing".
func AuditAction(code string) string {
	if words, ok := auditActions[code]; ok {
		return words
	}
	object, verb, ok := strings.Cut(code, ".")
	if !ok || object == "" || verb == "" {
		return code
	}
	words := strings.ReplaceAll(object, "_", " ") + ": " + strings.ReplaceAll(verb, "_", " ")
	return strings.ToUpper(words[:1]) + words[1:]
}
