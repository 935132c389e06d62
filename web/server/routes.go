package server

import (
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/web"
	"github.com/marquee-tickets/marquee/web/admin/counter"
	"github.com/marquee-tickets/marquee/web/admin/door"
	"github.com/marquee-tickets/marquee/web/admin/places"
	"github.com/marquee-tickets/marquee/web/admin/sales"
	"github.com/marquee-tickets/marquee/web/admin/schedule"
	"github.com/marquee-tickets/marquee/web/adminapi"
	"github.com/marquee-tickets/marquee/web/api"
	"github.com/marquee-tickets/marquee/web/clientaddr"
	"github.com/marquee-tickets/marquee/web/live"
	"github.com/marquee-tickets/marquee/web/pages"
	"github.com/marquee-tickets/marquee/web/pages/account"
	"github.com/marquee-tickets/marquee/web/session"
)

// routes registers every route of the server, each with its handler's
// package: api (the JSON API), adminapi (the admin's JSON API), the
// admin's pages by part (admin/places, admin/schedule, admin/sales), pages
// and pages/account (the moviegoer's HTML), live (the seat map's
// websocket), and Sandbox Pay's own pages.
// Global middleware (panic recovery, admission control, body limit,
// request deadline) is set by web.Server.Echo; admission control knows the
// static files, the probes, the webhook and the live seat map by their
// routes' names in web.
func routes(e *echo.Echo, s *web.Server) {
	var (
		a   = &api.Handlers{Server: s}
		ad  = &adminapi.Handlers{Server: s}
		pl  = &places.Handlers{Server: s}
		sch = &schedule.Handlers{Server: s}
		sl  = &sales.Handlers{Server: s}
		dr  = &door.Handlers{Server: s}
		bo  = &counter.Handlers{Server: s}
		p   = &pages.Handlers{Server: s}
		acc = &account.Handlers{Server: s}
		l   = &live.Handler{Server: s}
		o   = ops{Server: s}
	)

	// Operations. The metrics are not here but on an address of their
	// own (see Metrics).
	e.GET(web.HealthRoute, o.Healthz)
	e.GET(web.ReadyRoute, o.Readyz)

	// Static files (CSS, htmx, our JavaScript, images), embedded.
	e.GET(web.StaticRoute, web.StaticFiles())

	// The payment provider's server-to-server webhook: signed, no session.
	e.POST(web.WebhookRoute, a.PaymentWebhook)

	// The JSON API. Middleware is given per route rather than to the group:
	// a group with middleware catches unknown methods as 404, not 405.
	cop := s.CrossOrigin()
	loginLimit := s.RateLimit(web.LoginLimit, clientaddr.Key)
	signupLimit := s.RateLimit(web.SignupLimit, clientaddr.Key)
	holdLimit := s.RateLimit(web.HoldLimit, web.UserOrIP)
	guest := func(m ...echo.MiddlewareFunc) []echo.MiddlewareFunc {
		return slices.Concat([]echo.MiddlewareFunc{web.NoStore, cop}, m, []echo.MiddlewareFunc{s.Sessions.Load})
	}
	member := func(m ...echo.MiddlewareFunc) []echo.MiddlewareFunc {
		return slices.Concat(guest(), []echo.MiddlewareFunc{session.RequireUser}, m)
	}
	v1 := e.Group("/api/v1")

	// Accounts.
	v1.POST("/signup", a.Signup, guest(signupLimit)...)
	v1.POST("/login", a.Login, guest(loginLimit)...)
	v1.POST("/logout", a.Logout, guest()...)
	v1.GET("/me", a.Me, member()...)

	// Browsing: guests welcome.
	v1.GET("/shows", a.Shows, guest()...)
	v1.GET("/shows/:show_id", a.Show, guest()...)
	e.GET(web.SeatMapAPIRoute, a.SeatMap, guest()...) // compresses its own answer: see package compress

	// Waiting rooms: guests may queue.
	v1.POST("/shows/:show_id/queue", a.JoinQueue, guest()...)
	v1.GET("/shows/:show_id/queue", a.QueueStatus, guest()...)

	// Holds.
	v1.POST("/shows/:show_id/holds", a.CreateHold, member(holdLimit)...)
	v1.GET("/holds/:hold_id", a.Hold, member()...)
	v1.DELETE("/holds/:hold_id", a.ReleaseHold, member()...)

	// Payment.
	v1.POST("/holds/:hold_id/checkout", a.Checkout, member()...)

	// Bookings.
	v1.GET("/bookings", a.Bookings, member()...)
	v1.GET("/bookings/:booking_id", a.Booking, member()...)
	v1.POST("/bookings/:booking_id/cancel", a.CancelBooking, member()...)

	// The admin's JSON API: a guest gets 401, a moviegoer 403; each use
	// case decides which theatres' objects the admin may touch.
	staff := func(m ...echo.MiddlewareFunc) []echo.MiddlewareFunc {
		return slices.Concat(member(s.RequireAdmin), m)
	}
	adm := v1.Group("/admin")
	adm.POST("/cities", ad.CreateCity, staff()...)
	adm.POST("/theatres", ad.CreateTheatre, staff()...)
	adm.GET("/theatres", ad.Theatres, staff()...)
	adm.GET("/theatres/:theatre_id", ad.Theatre, staff()...)
	adm.PATCH("/theatres/:theatre_id", ad.UpdateTheatre, staff()...)
	adm.POST("/theatres/:theatre_id/admins", ad.GrantAdmin, staff()...)
	adm.DELETE("/theatres/:theatre_id/admins/:user_id", ad.RevokeAdmin, staff()...)
	adm.GET("/audit", ad.AuditLog, staff()...)

	adm.POST("/theatres/:theatre_id/screens", ad.CreateScreen, staff()...)
	adm.GET("/screens/:screen_id", ad.Screen, staff()...)
	adm.PATCH("/screens/:screen_id", ad.UpdateScreen, staff()...)
	adm.PUT("/screens/:screen_id/seats", ad.ReplaceLayout, staff()...)
	adm.POST("/movies", ad.CreateMovie, staff()...)
	adm.PATCH("/movies/:movie_id", ad.UpdateMovie, staff()...)
	adm.PUT("/movies/:movie_id/poster", ad.UploadPoster, staff()...)

	adm.POST("/shows", ad.CreateShow, staff()...)
	adm.POST("/shows/bulk", ad.ScheduleShows, staff()...)
	adm.GET("/theatres/:theatre_id/shows", ad.TheatreShows, staff()...)
	adm.PUT("/shows/:show_id/prices", ad.UpdatePrices, staff()...)

	adm.GET("/shows/:show_id", ad.ShowStatus, staff()...)
	adm.POST("/shows/:show_id/blocks", ad.BlockSeats, staff()...)
	adm.DELETE("/shows/:show_id/blocks", ad.UnblockSeats, staff()...)
	adm.POST("/shows/:show_id/cancel", ad.CancelShow, staff()...)
	adm.POST("/shows/:show_id/reschedule", ad.RescheduleShow, staff()...)
	adm.GET("/shows/:show_id/waiting-room", ad.WaitingRoom, staff()...)
	adm.PUT("/shows/:show_id/waiting-room", ad.SetWaitingRoom, staff()...)
	adm.GET("/reports/sales", ad.SalesReport, staff()...)

	// Running a theatre: its staff, and the door.
	adm.GET("/theatres/:theatre_id/staff", ad.Staff, staff()...)
	adm.POST("/theatres/:theatre_id/staff", ad.GrantStaff, staff()...)
	adm.DELETE("/theatres/:theatre_id/staff/:user_id", ad.RevokeStaff, staff()...)
	adm.GET("/shows/:show_id/door", ad.Door, staff()...)
	adm.POST("/shows/:show_id/checkins", ad.CheckIn, staff()...)
	adm.POST("/shows/:show_id/checkins/sync", ad.SyncCheckIns, staff()...)
	adm.POST("/shows/:show_id/sales", ad.Sell, staff()...)
	adm.GET("/shows/:show_id/attendees", ad.Attendees, staff()...)
	adm.GET("/bookings", ad.SearchBookings, staff()...)
	adm.POST("/bookings/:booking_id/refund", ad.RefundBooking, staff()...)
	adm.POST("/bookings/:booking_id/refund/paid", ad.CounterRefundPaid, staff()...)
	adm.POST("/bookings/:booking_id/move", ad.MoveBooking, staff()...)

	// Pages: the moviegoer's HTML. Each gets security headers, private
	// caching, the session and CSRF protection (s.Pages); every change is
	// a POST. Guests may browse and pick seats.
	signedIn := s.Pages(web.RequirePageUser)
	e.GET("/", p.HomePage, s.Pages()...)
	e.GET("/cities/:slug", p.CityPage, s.Pages()...)
	e.GET("/movies/:movie_id", p.MoviePage, s.Pages()...)
	e.Match([]string{"GET", "HEAD"}, "/movies/:movie_id/poster", p.MoviePoster) // an image: public, no session
	e.GET("/theatres/:theatre_id", p.TheatrePage, s.Pages()...)
	e.GET(web.ShowRoute, p.ShowPage, s.Pages()...) // these two compress their own answers
	e.GET(web.SeatMapRoute, p.SeatMapFragment, s.Pages()...)
	e.GET(web.LiveRoute, l.LiveSeatMap, s.Sessions.Load)
	e.GET("/shows/:show_id/queue", p.QueuePage, s.Pages()...)
	e.GET(web.QueueLiveRoute, l.QueueLive)
	e.GET("/shows/:show_id/booking", p.BookingFragment, s.Pages()...)
	e.POST("/shows/:show_id/hold", p.HoldSeatsPage, s.Pages(holdLimit)...)
	e.POST("/shows/:show_id/best", p.BestSeatsPage, s.Pages(holdLimit)...)
	e.POST("/holds/:hold_id/release", p.ReleaseHoldPage, signedIn...)

	// The moviegoer's own: bookings, tickets, the account forms.
	e.GET("/bookings", acc.BookingsPage, signedIn...)
	e.GET("/bookings/:booking_id", acc.TicketPage, signedIn...)
	e.GET("/bookings/:booking_id/qr.png", acc.TicketQR, signedIn...)
	e.GET("/bookings/:booking_id/cancel", acc.CancelPreview, signedIn...)
	e.POST("/bookings/:booking_id/cancel", acc.CancelBookingPage, signedIn...)
	e.GET("/login", acc.LoginPage, s.Pages()...)
	e.POST("/login", acc.LoginSubmit, s.Pages(acc.KeepForm(loginLimit, account.LoginForm))...)
	e.GET("/signup", acc.SignupPage, s.Pages()...)
	e.POST("/signup", acc.SignupSubmit, s.Pages(acc.KeepForm(signupLimit, account.SignupForm))...)
	e.POST("/logout", acc.LogoutSubmit, s.Pages()...)

	// The admin's pages: a guest is sent to log in, a moviegoer gets 403;
	// each use case decides which theatres' objects the admin may touch.
	staffPages := s.Pages(web.RequirePageUser, s.RequireAdmin)
	e.GET("/admin", sl.Dashboard, staffPages...)
	e.GET("/admin/theatres", pl.TheatresPage, staffPages...)
	e.POST("/admin/theatres", pl.CreateTheatreSubmit, staffPages...)
	e.POST("/admin/cities", pl.CreateCitySubmit, staffPages...)
	e.GET("/admin/theatres/:theatre_id", pl.TheatrePage, staffPages...)
	e.POST("/admin/theatres/:theatre_id", pl.UpdateTheatreSubmit, staffPages...)
	e.POST("/admin/theatres/:theatre_id/admins", pl.GrantSubmit, staffPages...)
	e.POST("/admin/theatres/:theatre_id/admins/:user_id/revoke", pl.RevokeSubmit, staffPages...)
	e.GET("/admin/theatres/:theatre_id/staff", pl.StaffPage, staffPages...)
	e.POST("/admin/theatres/:theatre_id/staff", pl.StaffSubmit, staffPages...)
	e.POST("/admin/theatres/:theatre_id/staff/:user_id/revoke", pl.StaffRevokeSubmit, staffPages...)

	e.GET("/admin/theatres/:theatre_id/screens/new", pl.NewScreenPage, staffPages...)
	e.POST("/admin/theatres/:theatre_id/screens", pl.CreateScreenSubmit, staffPages...)
	e.GET("/admin/screens/:screen_id", pl.ScreenPage, staffPages...)
	e.POST("/admin/screens/:screen_id/name", pl.RenameScreenSubmit, staffPages...)
	e.POST("/admin/screens/:screen_id/retire", pl.RetireScreenSubmit, staffPages...)
	e.POST("/admin/screens/:screen_id/unretire", pl.UnretireScreenSubmit, staffPages...)
	e.POST("/admin/screens/:screen_id/seats", pl.SaveLayoutSubmit, staffPages...)
	e.POST("/admin/screens/:screen_id/preview", pl.LayoutPreview, staffPages...)

	e.GET("/admin/movies", sch.MoviesPage, staffPages...)
	e.POST("/admin/movies", sch.CreateMovieSubmit, staffPages...)
	e.GET("/admin/movies/:movie_id", sch.MoviePage, staffPages...)
	e.POST("/admin/movies/:movie_id", sch.UpdateMovieSubmit, staffPages...)
	e.POST("/admin/movies/:movie_id/poster", sch.UploadPosterSubmit, staffPages...)
	e.GET("/admin/theatres/:theatre_id/schedule", sch.SchedulePage, staffPages...)
	e.POST("/admin/theatres/:theatre_id/schedule", sch.CreateShowSubmit, staffPages...)
	e.POST("/admin/theatres/:theatre_id/schedule/bulk", sch.BulkScheduleSubmit, staffPages...)
	e.POST("/admin/shows/:show_id/prices", sch.PricesSubmit, staffPages...)
	e.GET("/admin/price-reading", sch.PriceReading, staffPages...)

	e.GET("/admin/shows/:show_id", sch.ShowPage, staffPages...)
	e.GET("/admin/shows/:show_id/admitted", sch.AdmittedPart, staffPages...)
	e.POST("/admin/shows/:show_id/blocks", sch.BlockSubmit, staffPages...)
	e.POST("/admin/shows/:show_id/unblock", sch.UnblockSubmit, staffPages...)
	e.POST("/admin/shows/:show_id/cancel", sch.CancelShowSubmit, staffPages...)
	e.POST("/admin/shows/:show_id/reschedule", sch.RescheduleSubmit, staffPages...)
	e.POST("/admin/shows/:show_id/waiting-room", sch.RoomSubmit, staffPages...)
	e.GET("/admin/reports/sales", sl.SalesPage, staffPages...)
	e.GET("/admin/reconciliation", sl.ReconciliationPage, staffPages...)
	e.POST("/admin/reconciliation", sl.ReconcileSubmit, staffPages...)
	e.GET("/admin/audit", sl.AuditPage, staffPages...)
	e.GET("/admin/bookings", sl.BookingsPage, staffPages...)
	e.GET("/admin/bookings/:booking_id", sl.BookingPage, staffPages...)
	e.POST("/admin/bookings/:booking_id/resend", sl.ResendSubmit, staffPages...)
	e.POST("/admin/bookings/:booking_id/refund", sl.RefundSubmit, staffPages...)
	e.POST("/admin/bookings/:booking_id/refund/paid", sl.CounterRefundSubmit, staffPages...)
	e.POST("/admin/bookings/:booking_id/move", sl.MoveSubmit, staffPages...)
	e.GET("/admin/jobs", sl.JobsPage, staffPages...)
	e.GET("/admin/door", dr.IndexPage, staffPages...)
	e.GET("/admin/shows/:show_id/attendees", dr.AttendeesPage, staffPages...)
	e.GET("/admin/shows/:show_id/attendees.csv", dr.AttendeesCSV, staffPages...)
	e.GET("/admin/box-office", bo.IndexPage, staffPages...)
	e.GET("/admin/shows/:show_id/sell", bo.Page, staffPages...)
	e.POST("/admin/shows/:show_id/sell", bo.Submit, staffPages...)
	e.GET("/admin/bookings/:booking_id/print", bo.PrintPage, staffPages...)
	e.GET("/admin/shows/:show_id/door", dr.Page, staffPages...)
	e.POST("/admin/shows/:show_id/door", dr.Submit, staffPages...)

	// Checkout: paying for a hold from the pages, and the return page the
	// provider sends the shopper back to (it polls its status fragment).
	e.POST("/holds/:hold_id/pay", p.PayHold, signedIn...)
	e.GET("/checkout/return", p.CheckoutReturn, signedIn...)
	e.GET("/checkout/return/status", p.CheckoutReturnStatus, signedIn...)

	// Demo mode's dev mailbox, when mail is kept rather than sent.
	if s.Config.DevMailbox {
		e.GET("/dev/mailbox", acc.MailboxPage, signedIn...)
		e.GET("/dev/mailbox/:mail_id", acc.MailPage, signedIn...)
		e.GET("/dev/mailbox/:mail_id/html", acc.MailHTML, signedIn...)
		e.GET("/dev/mailbox/:mail_id/parts/:part", acc.MailPart, signedIn...)
		e.GET("/dev/mailbox/:mail_id/raw", acc.MailRaw, signedIn...)
	}

	// Sandbox Pay's own hosted pages, when it is the provider: /sandbox,
	// /sandbox/settings, /sandbox/checkout/:checkout_id and its /pay and
	// /decline (see sandbox.Routes). Its dashboard and switch, which show
	// and change what every shopper gets, are for platform admins.
	if sb := s.Config.Sandbox; sb != nil {
		sb.Routes(e, web.CSRFToken, s.Pages(), web.RequirePageUser, s.RequireAdmin, web.RequirePlatformAdmin)
	}
}
