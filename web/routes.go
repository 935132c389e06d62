package web

import (
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

	// The payment provider's server-to-server webhook: signed, no session.
	e.POST("/payments/webhook", s.paymentWebhook)

	// The JSON API. Every route knows its caller (or that it is a guest).
	api := e.Group("/api/v1", s.crossOrigin(), s.loadSession)
	accountLimit := s.rateLimit(accountLimit, clientIP)
	holdLimit := s.rateLimit(holdLimit, userOrIP)

	// Accounts.
	api.POST("/signup", s.signup, accountLimit)
	api.POST("/login", s.login, accountLimit)
	api.POST("/logout", s.logout)
	api.GET("/me", s.me, requireUser)

	// Browsing: guests welcome.
	api.GET("/shows", s.shows)
	api.GET("/shows/:show_id/seats", s.seatMap)

	// Holds.
	api.POST("/shows/:show_id/holds", s.createHold, requireUser, holdLimit)
	api.GET("/holds/:hold_id", s.hold, requireUser)
	api.DELETE("/holds/:hold_id", s.releaseHold, requireUser)

	// Payment.
	api.POST("/holds/:hold_id/checkout", s.checkout, requireUser)

	// Bookings.
	api.GET("/bookings", s.bookings, requireUser)
	api.GET("/bookings/:booking_id", s.booking, requireUser)
	api.POST("/bookings/:booking_id/cancel", s.cancelBooking, requireUser)
}
