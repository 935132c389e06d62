// Package pages serves the moviegoer's HTML pages for browsing and booking:
// home, cities, movies, theatres, a show's seat map with holding and
// releasing, and paying with its return page.
package pages

import "github.com/marquee-tickets/marquee/web"

// Handlers are the pages' handlers, on the shared server.
type Handlers struct {
	*web.Server
	shows showInfos // what a show page shows besides its seats, kept a moment
}
