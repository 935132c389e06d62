// Package admin is the theatre admin's pages under /admin, served by a
// package for each part: places (cities, theatres and grants, screens and
// the seat-layout editor), schedule (movies and posters, scheduling and
// prices, a show's live occupancy with seat blocks, cancellation and its
// waiting room) and sales (the dashboard, the sales report, payments to
// check and the audit log), with adminpage what they share. Each handler
// parses the form, calls a use case of internal/admin with the signed-in
// admin, and renders a component of components/admin. The tests here
// drive the pages over HTTP, as a browser would.
package admin
