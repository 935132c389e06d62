package web

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/marquee-tickets/marquee/components"
	"github.com/marquee-tickets/marquee/internal/booking"
	"github.com/marquee-tickets/marquee/web/accesslog"
	"github.com/marquee-tickets/marquee/web/problem"
	"github.com/marquee-tickets/marquee/web/session"
)

// HandleError is Echo's error handler: every error, from a handler, a
// middleware or the router, is answered as JSON, or for pages as a friendly
// page or htmx fragment (see wantsHTML). Internal errors are logged
// with the request; their text never reaches the client. An answer that
// failed on our side (5xx) carries the request's id instead, which the
// log's lines about it carry too: a person can quote it to support.
func (s *Server) HandleError(err error, c echo.Context) {
	ae, internal := problem.For(err)
	req := c.Request()
	ctx := req.Context()
	if internal {
		switch {
		case errors.Is(err, context.Canceled) && ctx.Err() != nil:
			// The client went away; nobody reads the answer.
			s.Log.DebugContext(ctx, "request cancelled", "method", req.Method, "route", c.Path(), "path", req.URL.Path, "err", err)
		default:
			attrs := []any{"method", req.Method, "route", c.Path(), "path", req.URL.Path, "status", ae.Status, "err", err}
			var pe *problem.PanicError
			if errors.As(err, &pe) {
				attrs = append(attrs, "stack", string(pe.Stack))
			}
			s.Log.ErrorContext(ctx, "request failed", attrs...)
		}
	}
	var reference string
	if ae.Status >= http.StatusInternalServerError {
		reference = accesslog.ID(ctx)
	}
	if c.Response().Committed {
		return
	}
	h := c.Response().Header()
	for k, v := range ae.Header {
		h.Set(k, v)
	}
	if req.Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	if wantsHTML(c) {
		if err := s.renderProblem(c, ae, reference); err != nil {
			s.Log.WarnContext(ctx, "write error page", "err", err)
		}
		return
	}
	body := ae.Body()
	if reference != "" {
		body["request_id"] = reference
	}
	if err := c.JSON(ae.Status, body); err != nil {
		s.Log.DebugContext(ctx, "write error answer", "err", err)
	}
}

// problemFor turns an error answer into what a person reads on a page;
// reference is the request's id for a failure of ours, else "".
func problemFor(ae *problem.Error, reference string) components.Problem {
	p := components.Problem{Status: ae.Status, Message: ae.Message, Reference: reference}
	if ae.Code == problem.ErrUnavailable.Code {
		// The database is out of reach: nothing the reader did failed.
		p.Title = "We'll be right back"
		p.Message = "We can't reach our ticket system right now. Nothing you did was lost — try again in a few seconds."
		return p
	}
	if ae.Code == problem.BusyCode {
		p.Title = "We're very busy right now"
		return p
	}
	switch ae.Status {
	case http.StatusNotFound:
		p.Title = "We couldn't find that"
		if ae.Code == "not_found" && ae.Message == "There is nothing at this address." {
			p.Message = "There is no page at this address. It may have moved, or the link may be mistyped."
		}
	case http.StatusForbidden:
		p.Title = "That didn't go through"
	case http.StatusConflict:
		p.Title = "That can't be done right now"
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		p.Title = "Please check and try again"
	case http.StatusTooManyRequests:
		p.Title = "Slow down a little"
	case http.StatusUnauthorized:
		p.Title = "Please log in"
	case http.StatusMethodNotAllowed:
		p.Title = "That doesn't work here"
	default:
		p.Title = "Something went wrong"
		if ae.Status >= 500 {
			p.Message = "Something went wrong on our side. Please try again in a moment."
		}
	}
	return p
}

// wantsHTML reports whether an error should be answered as HTML: always for
// a page route, and for any other address outside the API when a browser
// asks (htmx, or an Accept header naming text/html).
func wantsHTML(c echo.Context) bool {
	if page, _ := c.Get(pageKey).(bool); page {
		return true
	}
	p := c.Request().URL.Path
	if strings.HasPrefix(p, "/api/") || p == WebhookRoute {
		return false
	}
	return IsHTMX(c) || strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/html")
}

// renderProblem answers an error as HTML: a fragment for htmx, swapped into
// the page's #flash region, else a whole page. Either shows reference, when
// there is one, for the reader to quote.
func (s *Server) renderProblem(c echo.Context, ae *problem.Error, reference string) error {
	h := c.Response().Header()
	setSecurityHeaders(h, s.Secure())
	h.Set(echo.HeaderCacheControl, "no-store")
	p := problemFor(ae, reference)
	// The request's context may be over (a deadline, or middleware that
	// has returned): the answer is still owed.
	ctx := context.WithoutCancel(c.Request().Context())
	if IsHTMX(c) {
		h.Set("HX-Retarget", "#flash")
		h.Set("HX-Reswap", "innerHTML")
		return renderIn(ctx, c, ae.Status, components.ErrorToast(p))
	}
	if ae.Code == problem.BusyCode {
		m, b := s.busyMeta(c, ae)
		b.Reference = reference
		return renderIn(ctx, c, ae.Status, components.BusyPage(m, b))
	}
	m := s.errorMeta(c)
	return renderIn(ctx, c, ae.Status, components.ErrorPage(m, p))
}

// busyMeta is the layout and content of the busy page. It is answered
// without the database, which the request was not given a turn at: the
// header names no account. A page reloads itself when its Retry-After is
// up; a form's answer does not (reloaded, it would be a GET), and leads back
// to the page the form was sent from.
func (s *Server) busyMeta(c echo.Context, ae *problem.Error) (components.Meta, components.Busy) {
	m := components.Meta{Title: "Very busy", CSRF: CSRFToken(c), Sandbox: s.Config.Sandbox != nil, NoAccount: true}
	req := c.Request()
	if req.Method != http.MethodGet {
		return m, components.Busy{Again: SafeNext(req.Referer())}
	}
	retry, _ := ae.Details["retry_after"].(int)
	m.Refresh = max(1, retry)
	return m, components.Busy{RetryIn: m.Refresh, Again: SafeNext(req.URL.RequestURI())}
}

// errorMeta is the layout data of an error page, with the same header as
// every other page. It must not fail: the database may be what failed.
func (s *Server) errorMeta(c echo.Context) components.Meta {
	m := components.Meta{Title: "Error", CSRF: CSRFToken(c), Sandbox: s.Config.Sandbox != nil}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), s.requestTimeout()/5)
	defer cancel()
	id := session.UserID(c)
	if id == "" {
		// An address no route knows never loaded the session.
		id = s.sessionUser(ctx, c)
	}
	if id != "" {
		if u, err := s.layout.user(ctx, id); err == nil {
			m.User = &u
		} else if !errors.Is(err, booking.ErrNotFound) {
			s.Log.DebugContext(ctx, "error page: read user", "err", err)
		}
	}
	m.City = s.layoutCity(ctx, c)
	return m
}

// sessionUser is the user of the caller's session cookie, for an answer
// that did not go through the session's middleware; "" for a guest or a
// session that cannot be read.
func (s *Server) sessionUser(ctx context.Context, c echo.Context) string {
	ck, err := c.Cookie(session.CookieName(s.Config.PublicURL))
	if err != nil || ck.Value == "" {
		return ""
	}
	user, err := s.Sessions.UserOf(ctx, ck.Value)
	if err != nil {
		s.Log.DebugContext(ctx, "error page: read session", "err", err)
		return ""
	}
	return user
}
