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
		earliest := map[int64]int64{}
		var show, at int64
		var seats []string
		_, err = pgx.ForEachRow(rows, []any{&show, &seats, &at}, func() error {
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
		payloads, err := changePayloads(byShow, earliest)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) p`, channel, payloads); err != nil {
			return fmt.Errorf("notify seat changes: %w", err)
		}
		return nil
	})
	return n, err
}

// changePayloads encodes each show's changed seats as
// {"show":id,"seats":[...],"at":ms}, at being the earliest change's time,
// split so that no payload exceeds payloadLimit.
func changePayloads(byShow map[int64][]string, earliest map[int64]int64) ([]string, error) {
	type change struct {
		Show  int64    `json:"show"`
		Seats []string `json:"seats"`
		At    int64    `json:"at"`
	}
	var out []string
	for show, seats := range byShow {
		slices.Sort(seats)
		seats = slices.Compact(seats)
		for len(seats) > 0 {
			// Seat ids are at most 16 bytes; 19 with quotes and a comma.
			k := min(len(seats), (payloadLimit-64)/19)
			b, err := json.Marshal(change{Show: show, Seats: seats[:k], At: earliest[show]})
			if err != nil {
				return nil, fmt.Errorf("encode seat change: %w", err)
			}
			out = append(out, string(b))
			seats = seats[k:]
		}
	}
	return out, nil
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
