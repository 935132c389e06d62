// Package api serves the JSON API of docs/api.md under /api/v1, and the
// payment provider's webhook: each handler parses, calls a use case and
// answers JSON.
package api

import "github.com/marquee-tickets/marquee/web"

// Handlers are the API's handlers, on the shared server.
type Handlers struct{ *web.Server }
