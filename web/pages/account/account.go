// Package account serves the moviegoer's own pages: sign-up, log-in and
// log-out, My bookings with cancelling, and the e-ticket.
package account

import "github.com/marquee-tickets/marquee/web"

// Handlers are the account pages' handlers, on the shared server.
type Handlers struct{ *web.Server }
