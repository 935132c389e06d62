// Package audit holds the words of the audit log: every change an admin
// makes is an Entry, written in the change's own transaction, and read
// back as Records.
package audit

import "time"

// Entry is one admin change, written in the transaction of the change:
// who did what to which object, with the object before and after (nil for
// a creation or a deletion), as JSON.
type Entry struct {
	ID        int64
	At        time.Time
	ActorID   string
	TheatreID int64  // 0: the change is to no one theatre (a city, a movie)
	Action    string // <object>.<verb>, e.g. theatre.create
	Object    string // e.g. "theatre 12"
	Before    any
	After     any
}

// Record is an entry of the audit log with its actor's e-mail; Before and
// After are json.RawMessage (nil for none).
type Record struct {
	Entry
	ActorEmail string
}

// Filter narrows the audit log. From and To are days (UTC), both
// included; zero values do not narrow.
type Filter struct {
	TheatreID  int64
	ActorEmail string
	From, To   time.Time
	Limit      int // 1 to 500; other values are 100
}
