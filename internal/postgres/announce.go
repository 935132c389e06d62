package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// payloadLimit keeps each NOTIFY payload well under Postgres's 8000 bytes.
const payloadLimit = 7000

// AnnounceSeatChanges takes up to limit committed changes off the
// seat_events queue (a change is one statement's seats of one show) and
// announces them on channel: one NOTIFY per show (more when one show's seats
// do not fit in a payload), all sent by one commit. It returns how many
// seats the changes named. Instances running it at once never take the same
// change, and a change still uncommitted is simply not seen yet: it is taken
// by a later call.
func (s *Store) AnnounceSeatChanges(ctx context.Context, channel string, limit int) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			DELETE FROM seat_events WHERE ctid = ANY (ARRAY(
				SELECT ctid FROM seat_events LIMIT $1 FOR UPDATE SKIP LOCKED))
			RETURNING show_id, seat_ids, (extract(epoch FROM at) * 1000)::bigint`, limit)
		if err != nil {
			return fmt.Errorf("take seat changes: %w", err)
		}
		byShow := map[int64][]string{}
		whole := map[int64]bool{}
		earliest := map[int64]int64{}
		var show, at int64
		var seats []string
		_, err = pgx.ForEachRow(rows, []any{&show, &seats, &at}, func() error {
			if len(seats) == 0 {
				whole[show] = true // see announceShows
				n++
			}
			byShow[show] = append(byShow[show], seats...)
			if e, ok := earliest[show]; !ok || at < e {
				earliest[show] = at
			}
			n += len(seats)
			return nil
		})
		if err != nil {
			return fmt.Errorf("take seat changes: %w", err)
		}
		if n == 0 {
			return nil
		}
		changes := changesByShow(byShow, whole, earliest)
		// Numbered in commit order (see 000012_seat_feed). The batch is
		// worth nothing after a crash, which drops every listener anyway:
		// no need to wait for the disk.
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return fmt.Errorf("number seat changes: %w", err)
		}
		var last int64
		if err := tx.QueryRow(ctx, `UPDATE seat_feed SET seq = seq + $1 RETURNING seq`, len(changes)).Scan(&last); err != nil {
			return fmt.Errorf("number seat changes: %w", err)
		}
		payloads := make([]string, len(changes))
		for i := range changes {
			changes[i].Seq = last - int64(len(changes)-1-i)
			b, err := json.Marshal(changes[i])
			if err != nil {
				return fmt.Errorf("encode seat change: %w", err)
			}
			payloads[i] = string(b)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) p`, channel, payloads); err != nil {
			return fmt.Errorf("notify seat changes: %w", err)
		}
		return nil
	})
	return n, err
}

// seatChange is one NOTIFY's payload: {"show":id,"seats":[...],"at":ms,"seq":n}
// or, for the whole show, {"show":id,"resync":true,"at":ms,"seq":n}; at is the
// earliest change's time and seq the feed's number.
type seatChange struct {
	Show   int64    `json:"show"`
	Seats  []string `json:"seats,omitempty"`
	Resync bool     `json:"resync,omitempty"`
	At     int64    `json:"at"`
	Seq    int64    `json:"seq"`
}

// changesByShow makes each show's changed seats into changes, split so that
// no payload exceeds payloadLimit; a show changed whole is one change.
func changesByShow(byShow map[int64][]string, whole map[int64]bool, earliest map[int64]int64) []seatChange {
	var out []seatChange
	for show, seats := range byShow {
		if whole[show] {
			out = append(out, seatChange{Show: show, Resync: true, At: earliest[show]})
			continue
		}
		slices.Sort(seats)
		seats = slices.Compact(seats)
		for len(seats) > 0 {
			// Seat ids are at most 16 bytes; 19 with quotes and a comma.
			k := min(len(seats), (payloadLimit-96)/19)
			out = append(out, seatChange{Show: show, Seats: seats[:k], At: earliest[show]})
			seats = seats[k:]
		}
	}
	return out
}

// SeatFeedPosition is the number of the last seat change announced (see
// 000012_seat_feed).
func (s *Store) SeatFeedPosition(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.pool.QueryRow(ctx, `SELECT seq FROM seat_feed`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read seat feed position: %w", err)
	}
	return seq, nil
}

// VacuumSeatEvents frees the space of the changes already announced, so
// that taking the next ones scans no more than the queue holds. It leaves
// the emptied pages in the table (TRUNCATE false): giving them back takes a
// lock that would stall every statement changing seats meanwhile; inserts
// reuse them instead. An instance that finds another one vacuuming skips.
func (s *Store) VacuumSeatEvents(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, `VACUUM (SKIP_LOCKED, TRUNCATE false) seat_events`); err != nil {
		return fmt.Errorf("vacuum seat_events: %w", err)
	}
	return nil
}
