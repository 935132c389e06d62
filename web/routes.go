package web

import (
	"slices"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes registers every route of the server. Global middleware (panic
// recovery, body limit, request deadline) is set in New.
func (s *server) routes(e *echo.Echo, gatherer prometheus.Gatherer) {
	// Operations.
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{})))

	// Static files (CSS, htmx, our JavaScript, images), embedded.
	e.GET("/static/*", staticFiles())

	// The payment provider's server-to-server webhook: signed, no session.
	e.POST("/payments/webhook", s.paymentWebhook)

	// The JSON API. Middleware is given per route rather than to the group:
	// a group with middleware catches unknown methods as 404, not 405.
	cop := s.crossOrigin()
	accountLimit := s.rateLimit(accountLimit, clientIP)
	holdLimit := s.rateLimit(holdLimit, userOrIP)
	guest := func(m ...echo.MiddlewareFunc) []echo.MiddlewareFunc {
		return slices.Concat([]echo.MiddlewareFunc{noStore, cop}, m, []echo.MiddlewareFunc{s.loadSession})
	}
	member := func(m ...echo.MiddlewareFunc) []echo.MiddlewareFunc {
		return slices.Concat(guest(), []echo.MiddlewareFunc{requireUser}, m)
	}
	api := e.Group("/api/v1")

	// Accounts.
	api.POST("/signup", s.signup, guest(accountLimit)...)
	api.POST("/login", s.login, guest(accountLimit)...)
	api.POST("/logout", s.logout, guest()...)
	api.GET("/me", s.me, member()...)

	// Browsing: guests welcome.
	api.GET("/shows", s.shows, guest()...)
	api.GET("/shows/:show_id", s.show, guest()...)
	api.GET("/shows/:show_id/seats", s.seatMap, guest()...)

	// Holds.
	api.POST("/shows/:show_id/holds", s.createHold, member(holdLimit)...)
	api.GET("/holds/:hold_id", s.hold, member()...)
	api.DELETE("/holds/:hold_id", s.releaseHold, member()...)

	// Payment.
	api.POST("/holds/:hold_id/checkout", s.checkout, member()...)

	// Bookings.
	api.GET("/bookings", s.bookings, member()...)
	api.GET("/bookings/:booking_id", s.booking, member()...)
	api.POST("/bookings/:booking_id/cancel", s.cancelBooking, member()...)

	// Pages: the moviegoer's HTML (page_*.go). Each gets security headers,
	// private caching, the session and CSRF protection (s.pages); every
	// change is a POST. Guests may browse and pick seats.
	signedIn := s.pages(requirePageUser)
	e.GET("/", s.homePage, s.pages()...)
	e.GET("/cities/:slug", s.cityPage, s.pages()...)
	e.GET("/movies/:movie_id", s.moviePage, s.pages()...)
	e.Match([]string{"GET", "HEAD"}, "/movies/:movie_id/poster", s.moviePoster) // an image: public, no session
	e.GET("/theatres/:theatre_id", s.theatrePage, s.pages()...)
	e.GET("/shows/:show_id", s.showPage, s.pages()...)
	e.GET("/shows/:show_id/seatmap", s.seatMapFragment, s.pages()...)
	e.GET(liveRoute, s.liveSeatMap, s.loadSession)
	e.GET("/shows/:show_id/booking", s.bookingFragment, s.pages()...)
	e.POST("/shows/:show_id/hold", s.holdSeatsPage, s.pages(holdLimit)...)
	e.POST("/holds/:hold_id/release", s.releaseHoldPage, signedIn...)
	e.GET("/bookings", s.bookingsPage, signedIn...)
	e.GET("/bookings/:booking_id", s.ticketPage, signedIn...)
	e.GET("/bookings/:booking_id/qr.png", s.ticketQR, signedIn...)
	e.GET("/bookings/:booking_id/cancel", s.cancelPreview, signedIn...)
	e.POST("/bookings/:booking_id/cancel", s.cancelBookingPage, signedIn...)
	e.GET("/login", s.loginPage, s.pages()...)
	e.POST("/login", s.loginSubmit, s.pages(s.keepForm(accountLimit, loginPage))...)
	e.GET("/signup", s.signupPage, s.pages()...)
	e.POST("/signup", s.signupSubmit, s.pages(s.keepForm(accountLimit, signupPage))...)
	e.POST("/logout", s.logoutSubmit, s.pages()...)

	// Sandbox / checkout: paying for a hold from the pages, the return page
	// the provider sends the shopper back to (it polls its status fragment),
	// and Sandbox Pay's own hosted pages when the sandbox is the provider.
	e.POST("/holds/:hold_id/pay", s.payHold, s.pages(requirePageUser)...)
	e.GET("/checkout/return", s.checkoutReturn, s.pages(requirePageUser)...)
	e.GET("/checkout/return/status", s.checkoutReturnStatus, s.pages(requirePageUser)...)
	if s.sandbox != nil {
		// /sandbox, /sandbox/settings, /sandbox/checkout/:checkout_id and
		// its /pay and /decline: see sandbox.Routes.
		s.sandbox.Routes(e, csrfToken, s.pages()...)
	}
}
