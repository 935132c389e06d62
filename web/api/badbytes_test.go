package api_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/marquee-tickets/marquee/internal/payment"
	"github.com/marquee-tickets/marquee/web/webtest"
)

// Bytes that are not UTF-8, NUL and other control characters, anywhere a
// request carries text, are refused with 400 invalid_text before anything
// is read or changed: never a 500 from Postgres, never repaired into
// U+FFFD.
func TestUnreadableTextIsRefused(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	c := e.User(t)
	e.Pay(t, e.User(t).MustHold(t, "J1"))
	holds := fmt.Sprintf("/api/v1/shows/%d/holds", e.Show)
	key := func(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	signed := func(body string) map[string]string {
		return map[string]string{payment.SignatureHeader: payment.Sign(webtest.WebhookSecret, time.Now(), []byte(body))}
	}
	// A webhook whose body is signed but carries an id that is not UTF-8.
	badPayment := `{"payment_id":"pay_` + "\xff" + `","hold_id":"h","amount_minor":1,"currency":"INR","status":"succeeded"}`

	cases := []struct {
		name string
		as   *webtest.Client
		req  webtest.Req
		in   string
	}{
		// The probe's: path parameters that Postgres refused (500).
		{"a sandbox checkout id of %FF", e.Guest(), webtest.Req{Method: "GET", Path: "/sandbox/checkout/%FF"}, "path"},
		{"a sandbox checkout id of %00", e.Guest(), webtest.Req{Method: "GET", Path: "/sandbox/checkout/%00"}, "path"},
		{"paying a sandbox checkout id of %FF", e.Guest(), webtest.Req{Method: "POST", Path: "/sandbox/checkout/%FF/pay", Body: "behaviour=succeed", Header: form}, "path"},
		{"a city slug of %FF", e.Guest(), webtest.Req{Method: "GET", Path: "/cities/%FF"}, "path"},
		{"an overlong NUL in a path", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/holds/%C0%80"}, "path"},
		{"a control character in a path", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows/1%01"}, "path"},
		{"an unknown route with %FF", e.Guest(), webtest.Req{Method: "GET", Path: "/nothing/%FF%FE"}, "path"},
		// Queries.
		{"a city query of %FF", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?city=%FF"}, "query"},
		{"a query key of %FF", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?%FF=1"}, "query"},
		{"a NUL in a query", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?date=%00"}, "query"},
		{"a line feed in a query", e.Guest(), webtest.Req{Method: "GET", Path: "/login?next=/%0A"}, "query"},
		{"a C1 control in a query", e.Guest(), webtest.Req{Method: "GET", Path: "/api/v1/shows?city=%C2%85"}, "query"},
		// JSON strings.
		{"a sign-up email of raw \\xff", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"` + "\xff" + `@example.com","password":"correct horse","name":"N"}`}, "body"},
		{"a sign-up email with a lone surrogate", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"\ud800@example.com","password":"correct horse","name":"N"}`}, "body"},
		{"a sign-up name with a low surrogate first", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"sur@example.com","password":"correct horse","name":"\udc00\ud800"}`}, "body"},
		{"a sign-up name of \\u0000", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"nul@example.com","password":"correct horse","name":"N\u0000"}`}, "body"},
		{"a sign-up name with a raw DEL", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"del@example.com","password":"correct horse","name":"N` + "\x7f" + `"}`}, "body"},
		{"a sign-up password of \\xfe", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: `{"email":"pw@example.com","password":"correct ` + "\xfe" + ` horse","name":"N"}`}, "body"},
		{"a login email of \\xfe", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/login", Body: `{"email":"` + "\xfe" + `@example.com","password":"correct horse"}`}, "body"},
		{"a key of \\xff in JSON", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/login", Body: `{"` + "\xff" + `":1}`}, "body"},
		{"a hold seat of \\u0085", c, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1\u0085"]}`, Header: key("bb1")}, "body"},
		{"a hold seat with a backspace", c, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A\b1"]}`, Header: key("bb2")}, "body"},
		{"a signed webhook with \\xff", e.Guest(), webtest.Req{Method: "POST", Path: "/payments/webhook", Body: badPayment, Header: signed(badPayment)}, "body"},
		// Headers.
		{"an Idempotency-Key of \\xff", c, webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A1"]}`, Header: key("k\xff")}, "header"},
		{"a signature header of \\xff", e.Guest(), webtest.Req{Method: "POST", Path: "/payments/webhook", Body: `{}`, Header: map[string]string{payment.SignatureHeader: "t=1,v1=\xff"}}, "header"},
		// Forms, as the pages send them.
		{"a sign-up form name of %FF%FE", e.Guest(), webtest.Req{Method: "POST", Path: "/signup", Body: "email=ff%40example.com&password=correct+horse&name=%FF%FE", Header: form}, "form"},
		{"a sign-up form email of %FF", e.Guest(), webtest.Req{Method: "POST", Path: "/signup", Body: "email=%FF%40example.com&password=correct+horse&name=N", Header: form}, "form"},
		{"a login form email of %FC", e.Guest(), webtest.Req{Method: "POST", Path: "/login", Body: "email=%FC%40example.com&password=correct+horse", Header: form}, "form"},
		{"a form field name of %FF", e.Guest(), webtest.Req{Method: "POST", Path: "/login", Body: "%FF=1", Header: form}, "form"},
		{"a NUL in a form", e.Guest(), webtest.Req{Method: "POST", Path: "/login", Body: "email=a%00%40example.com&password=x", Header: form}, "form"},
		{"a form sent to the API", e.Guest(), webtest.Req{Method: "POST", Path: "/api/v1/signup", Body: "name=%FF", Header: form}, "form"},
		{"a multipart form with \\xff", e.Guest(), multipartReq(t, "/signup", map[string]string{"email": "mp@example.com", "password": "correct horse", "name": "\xff"}), "form"},
		{"a multipart form with a NUL", e.Guest(), multipartReq(t, "/login", map[string]string{"email": "mp\x00@example.com", "password": "correct horse"}), "form"},
	}
	before := e.Snapshot(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.as.Send(tc.req)
			webtest.WantError(t, r, http.StatusBadRequest, "invalid_text")
			if !strings.Contains(r.Str("message"), "characters we can't read") || r.Str("in") != tc.in {
				t.Fatalf("answer = %s, want the message and in=%s", r, tc.in)
			}
			if after := e.Snapshot(t); after != before {
				t.Fatalf("database changed:\n before %s\n after  %s", before, after)
			}
		})
	}

	t.Run("text that is only unusual is let through", func(t *testing.T) {
		for _, req := range []webtest.Req{
			{Method: "GET", Path: "/api/v1/shows?city=%E0%A4%AC%E0%A5%87%E0%A4%82%E0%A4%97%E0%A4%B2%E0%A5%81%E0%A4%B0%E0%A5%81"}, // Devanagari
			{Method: "GET", Path: "/api/v1/shows?city=%EF%BF%BD"},                                                                // U+FFFD itself is a character
		} {
			if r := e.Guest().Send(req); r.Status == http.StatusBadRequest && r.Str("error") == "invalid_text" || r.Status >= 500 {
				t.Errorf("%s: %s", req.Path, r)
			}
		}
		// Line breaks are text in a form field and a JSON string.
		r := c.Send(webtest.Req{Method: "POST", Path: holds, Body: `{"seats":["A\n1"]}`, Header: key("bb-ok")})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_seat")
	})

	t.Run("an HTML page is told the same, as a page", func(t *testing.T) {
		b := e.Browser()
		p := b.Get(t, "/cities/%FF")
		webtest.WantFriendly(t, p, http.StatusBadRequest)
		if !strings.Contains(p.Body, "characters we can&#39;t read") && !strings.Contains(p.Body, "characters we can't read") {
			t.Fatalf("page does not say why: %s", p)
		}
		p = b.Submit(t, "/signup", url.Values{"name": {"\xff\xfe"}, "email": {"page-ff@example.com"}, "password": {"correct horse"}})
		webtest.WantFriendly(t, p, http.StatusBadRequest)
		if n := e.Count(t, `SELECT count(*) FROM users WHERE email = 'page-ff@example.com'`); n != 0 {
			t.Fatal("a refused sign-up made an account")
		}
	})
}

// multipartReq is a multipart form post of fields to path.
func multipartReq(t *testing.T, path string, fields map[string]string) webtest.Req {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return webtest.Req{Method: "POST", Path: path, Body: buf.Bytes(), Header: map[string]string{"Content-Type": w.FormDataContentType()}}
}

// The probe's: three addresses with different invalid bytes were stored
// as one, "\ufffd@...", so logging in with one got the other's account.
// Each is refused now, by the API and the pages, and no account is made;
// an account whose address has U+FFFD itself cannot be signed up for.
func TestInvalidEmailsAreNotOneAccount(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	for _, b := range []string{"\xff", "\xfe", "\xfc"} {
		// JSON escapes the bytes as the client sends them: raw.
		r := e.Guest().Post("/api/v1/signup", `{"email":"`+b+`@example.com","password":"correct horse","name":"N"}`)
		webtest.WantError(t, r, http.StatusBadRequest, "invalid_text")
		r = e.Guest().Send(webtest.Req{Method: "POST", Path: "/signup", Body: "email=" + url.QueryEscape(b+"@example.com") + "&password=correct+horse&name=N",
			Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
		webtest.WantError(t, r, http.StatusBadRequest, "invalid_text")
	}
	r := e.Guest().Post("/api/v1/signup", map[string]string{"email": "\ufffd@example.com", "password": "correct horse", "name": "N"})
	webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_email")
	if n := e.Count(t, `SELECT count(*) FROM users WHERE email LIKE '%' || chr(65533) || '%'`); n != 0 {
		t.Fatalf("%d accounts with U+FFFD in the email", n)
	}
}

// Weak passwords (NIST SP 800-63B) are refused at sign-up, by the API and
// the page, with the password named among the fields at fault, and make
// no account.
func TestWeakPasswordsAreRefused(t *testing.T) {
	t.Parallel()
	e := webtest.NewEnv(t)
	users := func() int64 { return e.Count(t, `SELECT count(*) FROM users`) }
	before := users()
	for _, tc := range []struct{ name, email, password, want string }{
		{"12345678", "weak1@example.com", "12345678", "most common"},
		{"password", "weak2@example.com", "password", "most common"},
		{"Password, capitalized", "weak3@example.com", "Password", "most common"},
		{"eight spaces", "weak4@example.com", "        ", "more than spaces"},
		{"the email", "weak5@example.com", "weak5@example.com", "email address or your name"},
		{"the name", "weak6@example.com", "Grace Hopper", "email address or your name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Guest().Post("/api/v1/signup", map[string]string{"email": tc.email, "password": tc.password, "name": "Grace Hopper"})
			webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_password")
			fields, _ := r.JSON["fields"].(map[string]any)
			if msg, _ := fields["password"].(string); !strings.Contains(msg, tc.want) || len(fields) != 1 {
				t.Fatalf("fields = %v, want only the password, saying %q", fields, tc.want)
			}
			p := e.Browser().Submit(t, "/signup", url.Values{"name": {"Grace Hopper"}, "email": {tc.email}, "password": {tc.password}})
			webtest.WantStatus(t, p, http.StatusUnprocessableEntity)
			if p.Attr("#password", "aria-invalid") != "true" || !strings.Contains(p.Text("#password-error"), tc.want) {
				t.Fatalf("the page does not name the password: %s", p)
			}
			if n := users(); n != before {
				t.Fatalf("%d accounts, want %d", n, before)
			}
		})
	}
	t.Run("every field at fault at once", func(t *testing.T) {
		r := e.Guest().Post("/api/v1/signup", map[string]string{"email": "nope", "password": "password", "name": " "})
		webtest.WantError(t, r, http.StatusUnprocessableEntity, "invalid_email")
		fields, _ := r.JSON["fields"].(map[string]any)
		if len(fields) != 3 {
			t.Fatalf("fields = %v, want email, name and password", fields)
		}
		if n := users(); n != before {
			t.Fatalf("%d accounts, want %d", n, before)
		}
	})
}
